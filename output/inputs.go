package output

import (
	"os"
	"sync"
)

// inputs are the files this invocation reads: an output that is one of
// them would replace it — `ckpt replay --algo pk t.json -o t.json`
// replaced the trace with a run that names itself as its source.
var inputs struct {
	sync.Mutex
	files []os.FileInfo
}

// Reset forgets the inputs of an earlier invocation (tests run many in
// one process).
func Reset() {
	inputs.Lock()
	inputs.files = nil
	inputs.Unlock()
}

// statRegular stats path, reporting whether it is a regular file (the
// only kind whose size, identity or replacement ckpt reasons about).
func statRegular(path string) (os.FileInfo, bool) {
	st, err := os.Stat(path)
	return st, err == nil && st.Mode().IsRegular()
}

// Reading records that path ("-": standard input) is an input of this
// invocation: Write refuses to replace it. Standard input redirected
// from a file is that file (redteam8: `ckpt explore - -o t.json <
// t.json` replaced the trace with the report).
func Reading(path string) {
	st, ok := statRegular(path)
	if path == "-" {
		var err error
		st, err = os.Stdin.Stat()
		ok = err == nil && st.Mode().IsRegular()
	}
	if !ok {
		return
	}
	inputs.Lock()
	inputs.files = append(inputs.files, st)
	inputs.Unlock()
}

// IsInput reports whether path is a file this invocation reads: Write
// refuses to replace it, and explore's clean-up never removes it.
func IsInput(path string) bool {
	st, ok := statRegular(path)
	if !ok {
		return false
	}
	inputs.Lock()
	defer inputs.Unlock()
	for _, in := range inputs.files {
		if os.SameFile(in, st) {
			return true
		}
	}
	return false
}
