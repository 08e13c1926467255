// Package race says whether the binary was built with the race
// detector. Its instrumentation allocates and touches memory of its
// own, so the tests that count allocations or resident pages skip
// under it; everything else runs as usual.
package race
