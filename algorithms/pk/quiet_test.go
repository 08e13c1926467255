package pk

import (
	"testing"

	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// TestQuietForgetsWhatOnlyRestoresRead: at the first quiet input PK drops
// its receipts' piggybacks and its checkpoints' vectors, and keeps none of
// the later ones, while the run it makes stays the same (the goldens
// replay the same runs with quiet inputs as before them).
func TestQuietForgetsWhatOnlyRestoresRead(t *testing.T) {
	tr, err := trace.NewBuilder("P0", "P1").
		Send(1, "P0", "P1", "a").
		Recv(1.5, "P1", "a").
		Checkpoint(2, "P1").
		Send(3, "P0", "P1", "b").
		Recv(3.5, "P1", "b").
		Checkpoint(4, "P1").
		Build()
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(Default, tr)
	if err != nil {
		t.Fatal(err)
	}
	kept := func() (pbs, vts int) {
		p := &a.procs[1]
		for _, r := range p.receipts {
			if r.pb != nil {
				pbs++
			}
		}
		for _, c := range p.ckpts[1:] {
			if c.vt != nil {
				vts++
			}
		}
		return pbs, vts
	}
	step := func(in replay.Input) []replay.Effect { return a.Step(&in, nil) }
	pbOf := func(fx []replay.Effect) *trace.Piggyback { return &fx[0].PB }
	pbA := pbOf(step(replay.Input{Kind: replay.InSend, T: 1, P: 0, Op: 0, Msg: 0, Peer: 1, Copy: 1, CopyNo: 1}))
	step(replay.Input{Kind: replay.InRecv, T: 15, P: 1, Op: 0, Msg: 0, Peer: 0, Copy: 1, CopyNo: 1, PB: pbA})
	step(replay.Input{Kind: replay.InTick, T: 2, P: 1, Pos: 1})
	if pbs, vts := kept(); pbs != 1 || vts != 1 {
		t.Fatalf("before quiet: %d piggybacks and %d checkpoint vectors kept, want 1 and 1", pbs, vts)
	}
	pbB := pbOf(step(replay.Input{Kind: replay.InSend, T: 3, P: 0, Pos: 1, Op: 1, Msg: 1, Peer: 1, Copy: 2, CopyNo: 1, Quiet: true}))
	if pbs, vts := kept(); pbs != 0 || vts != 0 {
		t.Fatalf("at the first quiet input: %d piggybacks and %d checkpoint vectors kept, want none", pbs, vts)
	}
	if fx := step(replay.Input{Kind: replay.InRecv, T: 35, P: 1, Pos: 1, Op: 1, Msg: 1, Peer: 0, Copy: 2, CopyNo: 1, PB: pbB, Quiet: true}); len(fx) == 0 || fx[len(fx)-1].Kind != replay.EffDeliver {
		t.Fatalf("b not delivered: %v", fx)
	}
	fx := step(replay.Input{Kind: replay.InTick, T: 4, P: 1, Pos: 2, Quiet: true})
	if fx[len(fx)-1].Kind != replay.EffCheckpoint || len(fx[len(fx)-1].VT) != 2 || fx[len(fx)-1].VT[0].Count != 2 {
		t.Fatalf("the quiet checkpoint still carries its vector in the run: %+v", fx)
	}
	if pbs, vts := kept(); pbs != 0 || vts != 0 {
		t.Fatalf("after quiet: %d piggybacks and %d checkpoint vectors kept, want none", pbs, vts)
	}
}
