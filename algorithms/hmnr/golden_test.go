package hmnr

import (
	"testing"

	"github.com/ckpt-dev/ckpt/algorithms/protocoltest"
	"github.com/ckpt-dev/ckpt/trace"
)

// TestGolden replays small traces; testdata/NAME.run.jsonl holds each
// run (rewrite with -update).
func TestGolden(t *testing.T) {
	protocoltest.CheckGolden(t, newHMNR, []protocoltest.GoldenCase{
		// Condition 1: m1 leaves P0's interval 0, P1 checkpoints, and
		// m2 would bring the dependency back into that interval: C(1,1)
		// would be on the Z-cycle [m2 m1]. Forced.
		{Name: "cycle", Trace: trace.NewBuilder("P0", "P1").
			Send(0.1, "P0", "P1", "m1").Recv(0.2, "P1", "m1").
			Checkpoint(0.3, "P1").
			Send(0.4, "P1", "P0", "m2").Recv(0.5, "P0", "m2"), Want: protocoltest.Counts{Basic: 1, Forced: 1}},
		// Condition 2: P0 sent to P1 in its interval; m2 has a higher lc
		// and its sender knows nothing of P1's clock (greater): forced,
		// as BCS would.
		{Name: "greater", Trace: trace.NewBuilder("P0", "P1", "P2").
			Send(0.1, "P0", "P1", "m0").
			Checkpoint(0.2, "P2").
			Send(0.3, "P2", "P0", "m2").Recv(0.4, "P0", "m2").
			Recv(0.5, "P1", "m0"), Want: protocoltest.Counts{Basic: 1, Forced: 1}},
		// The same, but P2 heard from P1 after P1's checkpoint: P1's lc
		// is not below m2's, so HMNR skips the forced checkpoint BCS
		// would take.
		{Name: "not-greater", Trace: trace.NewBuilder("P0", "P1", "P2").
			Checkpoint(0.05, "P1").
			Send(0.1, "P1", "P2", "mA").Recv(0.15, "P2", "mA").
			Send(0.2, "P0", "P1", "m0").
			Send(0.3, "P2", "P0", "m2").Recv(0.4, "P0", "m2").
			Recv(0.5, "P1", "m0"), Want: protocoltest.Counts{Basic: 1, Forced: 0}},
	})
}
