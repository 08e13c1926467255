package fdas

import (
	"testing"

	"github.com/ckpt-dev/ckpt/algorithms/protocoltest"
	"github.com/ckpt-dev/ckpt/trace"
)

// TestGolden replays small traces; testdata/NAME.run.jsonl holds each
// run (rewrite with -update).
func TestGolden(t *testing.T) {
	protocoltest.CheckGolden(t, newFDAS, []protocoltest.GoldenCase{
		// P1 sends m1 to P2, then m0 brings P1 its first dependency on
		// P0: forced checkpoint, or the Z-path [m0 m1] would go
		// untracked.
		{Name: "after-send", Trace: trace.NewBuilder("P0", "P1", "P2").
			Send(0.1, "P1", "P2", "m1").
			Send(0.2, "P0", "P1", "m0").
			Recv(0.3, "P1", "m0").Recv(0.4, "P2", "m1"), Want: protocoltest.Counts{Basic: 0, Forced: 1}},
		// The same receipt before any send of P1's interval: nothing.
		{Name: "before-send", Trace: trace.NewBuilder("P0", "P1", "P2").
			Send(0.2, "P0", "P1", "m0").
			Recv(0.3, "P1", "m0").
			Send(0.35, "P1", "P2", "m1").Recv(0.4, "P2", "m1"), Want: protocoltest.Counts{Basic: 0, Forced: 0}},
		// A dependency P1 already has (m2's) forces nothing, even after
		// a send; P0's tick makes m3's new. P0, having sent m3, then
		// gets its first news of P1 with m1: forced too.
		{Name: "known-then-new", Trace: trace.NewBuilder("P0", "P1").
			Send(0.1, "P0", "P1", "m0").Recv(0.2, "P1", "m0").
			Send(0.3, "P1", "P0", "m1").
			Send(0.35, "P0", "P1", "m2").Recv(0.4, "P1", "m2").
			Checkpoint(0.45, "P0").
			Send(0.5, "P0", "P1", "m3").Recv(0.6, "P1", "m3").
			Recv(0.7, "P0", "m1"), Want: protocoltest.Counts{Basic: 1, Forced: 2}},
	})
}
