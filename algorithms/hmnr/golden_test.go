package hmnr

import (
	"testing"

	"github.com/ckpt-dev/ckpt/algorithms/protocoltest"
	"github.com/ckpt-dev/ckpt/trace"
)

// TestGolden replays small traces; testdata/NAME.run.jsonl holds each
// run (rewrite with -update).
func TestGolden(t *testing.T) {
	cases := []struct {
		name  string
		b     *trace.Builder
		basic int
		force int
	}{
		// Condition 1: m1 leaves P0's interval 0, P1 checkpoints, and
		// m2 would bring the dependency back into that interval: C(1,1)
		// would be on the Z-cycle [m2 m1]. Forced.
		{"cycle", trace.NewBuilder("P0", "P1").
			Send(0.1, "P0", "P1", "m1").Recv(0.2, "P1", "m1").
			Checkpoint(0.3, "P1").
			Send(0.4, "P1", "P0", "m2").Recv(0.5, "P0", "m2"), 1, 1},
		// Condition 2: P0 sent to P1 in its interval; m2 has a higher lc
		// and its sender knows nothing of P1's clock (greater): forced,
		// as BCS would.
		{"greater", trace.NewBuilder("P0", "P1", "P2").
			Send(0.1, "P0", "P1", "m0").
			Checkpoint(0.2, "P2").
			Send(0.3, "P2", "P0", "m2").Recv(0.4, "P0", "m2").
			Recv(0.5, "P1", "m0"), 1, 1},
		// The same, but P2 heard from P1 after P1's checkpoint: P1's lc
		// is not below m2's, so HMNR skips the forced checkpoint BCS
		// would take.
		{"not-greater", trace.NewBuilder("P0", "P1", "P2").
			Checkpoint(0.05, "P1").
			Send(0.1, "P1", "P2", "mA").Recv(0.15, "P2", "mA").
			Send(0.2, "P0", "P1", "m0").
			Send(0.3, "P2", "P0", "m2").Recv(0.4, "P0", "m2").
			Recv(0.5, "P1", "m0"), 1, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := tc.b.Build()
			if err != nil {
				t.Fatal(err)
			}
			run := protocoltest.Replay(t, tr, mustNew(t, tr))
			protocoltest.Golden(t, tc.name+".run.jsonl", protocoltest.Encode(t, run))
			if c := protocoltest.CountsOf(run); c.Basic != tc.basic || c.Forced != tc.force {
				t.Errorf("basic %d forced %d, want %d and %d", c.Basic, c.Forced, tc.basic, tc.force)
			}
		})
	}
}
