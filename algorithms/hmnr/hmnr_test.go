package hmnr

import (
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	_ "github.com/ckpt-dev/ckpt/internal/golden" // -update, as in every test binary
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// The tests of HMNR are with those of the other placement protocols, in
// algorithms/protocoltest; the one here changes the machine's state.

// TestInitialCheckpoint: checkpoint 0 goes through the checkpoint
// procedure (ckpt[i] = 1). Were it skipped (ckpt[i] = 0, the other
// reading), "P0's interval 0" and "nothing of P0" would look alike, and
// P1's message — sent after P1's checkpoint, with taken[0] set by it —
// would force P0 although no path leads from P0 to P1.
func TestInitialCheckpoint(t *testing.T) {
	tr, err := tracetest.NewBuilder("P0", "P1").
		Checkpoint(0.1, "P1").
		Send(0.2, "P1", "P0", "m").Recv(0.3, "P0", "m").
		Build()
	if err != nil {
		t.Fatal(err)
	}
	forced := func(skipped bool) int {
		a := New(tr)
		if skipped {
			for p := range a.procs {
				a.procs[p].ckpt[p] = 0
			}
		}
		run, err := replay.Run(tr, a, replay.Options{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range run.Events {
			if e.Kind == trace.Checkpoint && e.CkptType == trace.CkptForced {
				n++
			}
		}
		return n
	}
	if n := forced(false); n != 0 {
		t.Fatalf("%d forced checkpoints, want none", n)
	}
	if n := forced(true); n != 1 {
		t.Fatalf("without the procedure at checkpoint 0: %d forced checkpoints, want the needless one", n)
	}
}
