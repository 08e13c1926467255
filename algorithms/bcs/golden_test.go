package bcs

import (
	"errors"
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
		// P0's basic checkpoint raises its lc to 1; m1 forces P1's
		// checkpoint 1 before the delivery; m2, sent back with lc 1,
		// forces nothing.
		{"forced", trace.NewBuilder("P0", "P1").
			Checkpoint(0.1, "P0").
			Send(0.2, "P0", "P1", "m1").Recv(0.5, "P1", "m1").
			Send(0.6, "P1", "P0", "m2").Recv(0.9, "P0", "m2"), 1, 1},
		// The lc travels: P0 (lc 2) → P1 → P2, each forced to 2 on the
		// way, though P2 never heard from P0 directly; P2's own tick
		// afterwards takes 3.
		{"transitive", trace.NewBuilder("P0", "P1", "P2").
			Checkpoint(0.1, "P0").Checkpoint(0.2, "P0").
			Send(0.3, "P0", "P1", "m1").Recv(0.4, "P1", "m1").
			Send(0.5, "P1", "P2", "m2").Recv(0.6, "P2", "m2").
			Checkpoint(0.7, "P2"), 3, 2},
		// Non-FIFO: m2 (lc 1) overtakes m1 (lc 0); m1 then forces
		// nothing.
		{"overtaken", trace.NewBuilder("P0", "P1").
			Send(0.1, "P0", "P1", "m1").
			Checkpoint(0.2, "P0").
			Send(0.3, "P0", "P1", "m2").
			Recv(0.4, "P1", "m2").Recv(0.5, "P1", "m1"), 1, 1},
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

func TestRefusesFailures(t *testing.T) {
	tr, err := trace.NewBuilder("P0", "P1").Internal(0.1, "P0").Fail(0.2, "P1").Build()
	if err != nil {
		t.Fatal(err)
	}
	var ie *trace.InputError
	if _, err := New(tr); !errors.As(err, &ie) || ie.Event != 1 {
		t.Fatalf("err = %v, want an input error at event 1", err)
	}
}
