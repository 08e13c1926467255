package cmd

import (
	"os"
	"runtime/debug"
	"sync"
)

// The collector's GOGC follows the size of the input, unless the GOGC
// environment variable sets it. Big inputs run at gcPercent (50): their
// tables are pointer-free arrays, cheap to mark, and collecting often
// cuts the peak by a fifth. Small ones run at smallGCPercent: with a heap
// of a few megabytes, GOGC 50 collects every megabyte or so, and explore's
// thousands of small replays spent two thirds of their CPU in the
// collector (K=2 on a 248-event real log: 6.4–8.0 s at 50, 1.9–2.1 s at
// 400, 16 → 60–75 MB peak). The cap stays the collector's soft limit
// either way.
const smallGCPercent = 400

// bigDocument is the document size from which an input is big: about
// 10^5 trace events.
const bigDocument = 8 << 20

// bigHeap is the replay estimate from which a replay is paced as a big
// input, its file small or not (checkReplaySized).
const bigHeap = 64 << 20

// gcPace is the process's GOGC choice: small until a big input is seen,
// then big for good (files decoded in parallel may see both).
var gcPace struct {
	sync.Mutex
	tuned bool // GOGC is ckpt's to set
	big   bool
}

// initGCPace starts at the small inputs' pace unless GOGC is set.
func initGCPace() {
	gcPace.Lock()
	defer gcPace.Unlock()
	gcPace.tuned = os.Getenv("GOGC") == ""
	gcPace.big = false
	if gcPace.tuned {
		debug.SetGCPercent(smallGCPercent)
	}
}

// bigInput switches to the big inputs' pace: before decoding a big file
// or reading stdin (whose size is unknown). gen streams its trace and
// keeps the small pace.
func bigInput() {
	gcPace.Lock()
	defer gcPace.Unlock()
	if gcPace.tuned && !gcPace.big {
		gcPace.big = true
		debug.SetGCPercent(gcPercent)
	}
}

// paceFor switches to the big inputs' pace before reading the file path
// if it is big, or of unknown size (a pipe), for readers that take no
// decode estimate (import's logs).
func paceFor(path string) {
	if st, ok := statRegular(path); !ok || st.Size() >= bigDocument {
		bigInput()
	}
}
