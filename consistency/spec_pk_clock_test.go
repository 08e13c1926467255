package consistency

import (
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
)

// The clocks together keep at most one unmerged vector per process: a
// process that only receives would otherwise hold maxGot-1 vectors that
// a streamed check has let go (the review of the lazy clock: 302 MB
// against 61 MB at 1,024 processes), and the clock still merges them all.
func TestClocksBoundUnmerged(t *testing.T) {
	const n = 4
	clocks := make([]pkClock, n)
	held := 0
	for i := range 100 {
		vt := make(trace.VT, n)
		vt[i%n] = trace.VTEntry{Count: int32(i + 1)}
		clocks[i%2].take(vt, n, &held)
		total := 0
		for c := range clocks {
			total += len(clocks[c].got)
		}
		if total != held || held > n {
			t.Fatalf("after %d takes: %d unmerged, counted %d, bound %d", i+1, total, held, n)
		}
	}
	for c := range 2 {
		got := clocks[c].vector(nil, n)
		for q := range n {
			if q%2 != c {
				continue
			}
			if want := int32(100 - n + q + 1); got[q].Count != want {
				t.Errorf("clock %d entry %d: %d, want %d (the latest taken)", c, q, got[q].Count, want)
			}
		}
	}
}
