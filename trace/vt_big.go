//go:build mips || mips64 || ppc64 || s390x

package trace

// incShift is the rotation that puts an entry's inc in the high half of
// its word (vtKey): on a big-endian machine it is there already.
const incShift = 0
