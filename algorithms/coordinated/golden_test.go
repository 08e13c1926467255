package coordinated

import (
	"testing"

	"github.com/ckpt-dev/ckpt/algorithms/protocoltest"
	"github.com/ckpt-dev/ckpt/trace"
)

// TestGolden replays small traces; testdata/NAME.run.jsonl holds each
// run (rewrite with -update).
func TestGolden(t *testing.T) {
	protocoltest.CheckGolden(t, newCoordinated, []protocoltest.GoldenCase{
		// One round at 1.0 with control_delay 0.5: P0 held [1.0, 2.0],
		// P1 and P2 [1.5, 2.5]. The request reaches P1 just before its
		// internal op at 1.5 (arrivals first). SPEC §3 makes an op
		// ready a full gap after the resume, so the op, due when the
		// hold began, runs at 2.5 + 1.0 and the send after it at 3.6:
		// blocking 1 s delays P1 by 2 s (docs/protocols.md). P1's and
		// P2's ticks are skipped, and so is P0's at 1.8, inside the
		// round.
		{Name: "round", Trace: trace.NewBuilder("P0", "P1", "P2").
			Send(0.5, "P1", "P2", "m0").Recv(0.7, "P2", "m0").
			Checkpoint(1.0, "P0").
			Internal(1.5, "P1").
			Send(1.6, "P1", "P2", "m1").Recv(1.8, "P2", "m1").
			Checkpoint(1.8, "P0").Checkpoint(1.9, "P1").Checkpoint(2.0, "P2"),
			Want: protocoltest.Counts{Basic: 3, Skipped: 3, Control: 6, Blocked: 3 * trace.Second}},
		// Two rounds back to back: P0's tick at 2.0 meets the last
		// acknowledgement of round 1, which arrives first; round 2
		// starts at once.
		{Name: "back-to-back", Trace: trace.NewBuilder("P0", "P1").
			Checkpoint(1.0, "P0").Checkpoint(2.0, "P0").
			Send(3.0, "P1", "P0", "m").Recv(3.5, "P0", "m"),
			Want: protocoltest.Counts{Basic: 4, Control: 6, Blocked: 4 * trace.Second}},
	})
}
