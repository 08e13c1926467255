package bcs

import (
	"testing"

	"github.com/ckpt-dev/ckpt/algorithms/protocoltest"
	"github.com/ckpt-dev/ckpt/trace"
)

// TestGolden replays small traces; testdata/NAME.run.jsonl holds each
// run (rewrite with -update).
func TestGolden(t *testing.T) {
	protocoltest.CheckGolden(t, newBCS, []protocoltest.GoldenCase{
		// P0's basic checkpoint raises its lc to 1; m1 forces P1's
		// checkpoint 1 before the delivery; m2, sent back with lc 1,
		// forces nothing.
		{Name: "forced", Trace: trace.NewBuilder("P0", "P1").
			Checkpoint(0.1, "P0").
			Send(0.2, "P0", "P1", "m1").Recv(0.5, "P1", "m1").
			Send(0.6, "P1", "P0", "m2").Recv(0.9, "P0", "m2"), Want: protocoltest.Counts{Basic: 1, Forced: 1}},
		// The lc travels: P0 (lc 2) → P1 → P2, each forced to 2 on the
		// way, though P2 never heard from P0 directly; P2's own tick
		// afterwards takes 3.
		{Name: "transitive", Trace: trace.NewBuilder("P0", "P1", "P2").
			Checkpoint(0.1, "P0").Checkpoint(0.2, "P0").
			Send(0.3, "P0", "P1", "m1").Recv(0.4, "P1", "m1").
			Send(0.5, "P1", "P2", "m2").Recv(0.6, "P2", "m2").
			Checkpoint(0.7, "P2"), Want: protocoltest.Counts{Basic: 3, Forced: 2}},
		// Non-FIFO: m2 (lc 1) overtakes m1 (lc 0); m1 then forces
		// nothing.
		{Name: "overtaken", Trace: trace.NewBuilder("P0", "P1").
			Send(0.1, "P0", "P1", "m1").
			Checkpoint(0.2, "P0").
			Send(0.3, "P0", "P1", "m2").
			Recv(0.4, "P1", "m2").Recv(0.5, "P1", "m1"), Want: protocoltest.Counts{Basic: 1, Forced: 1}},
	})
}

func TestRefusesFailures(t *testing.T) { protocoltest.CheckRefusesFailures(t, newBCS) }
