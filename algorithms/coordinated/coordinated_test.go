package coordinated

import (
	"testing"

	"github.com/ckpt-dev/ckpt/algorithms/protocoltest"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

func mustNew(t protocoltest.T, tr *trace.Trace) *Coordinated {
	t.Helper()
	a, err := New(tr)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// ctl is a control message of round r from `from` arriving at p.
func ctl(p, from replay.Proc, r int32) replay.Input {
	b := trace.NewControlBody()
	b.Origin, b.Count = int32(Initiator), r
	return replay.Input{Kind: replay.InControl, P: p, Peer: from, Body: &b}
}

// TestStep: one round over three processes, input by input.
func TestStep(t *testing.T) {
	tick := protocoltest.Tick
	req := func(to replay.Proc) string { return "control to=" + string(rune('0'+to)) + " origin=0 count=1" }
	steps := []protocoltest.Step{
		{In: tick(0), Want: []string{"checkpoint 1 basic sn=1", "hold", req(1), req(2)}},
		{In: tick(0), Want: []string{"skip sn=1"}}, // a round is in progress
		{In: tick(2), Want: []string{"skip"}},      // not the initiator, before any round (sn 0 is absent)
		{In: ctl(1, 0, 1), Want: []string{"checkpoint 1 basic sn=1", "hold", "control to=0 origin=0 count=1"}},
		{In: ctl(0, 1, 1), Want: nil}, // one acknowledgement of two
		{In: ctl(0, 1, 7), Want: nil}, // not this round's
		{In: ctl(2, 0, 1), Want: []string{"checkpoint 1 basic sn=1", "hold", "control to=0 origin=0 count=1"}},
		{In: ctl(0, 2, 1), Want: []string{req(1), req(2), "resume"}}, // commit
		{In: ctl(1, 0, 1), Want: []string{"resume"}},
		{In: protocoltest.Send(1, 2), Want: []string{"piggyback"}},
		{In: protocoltest.Recv(2, 1, trace.NewPiggyback()), Want: []string{"deliver"}},
		{In: tick(0), Want: []string{"checkpoint 2 basic sn=2", "hold", "control to=1 origin=0 count=2", "control to=2 origin=0 count=2"}},
		{In: protocoltest.Down(tick(1)), Want: nil},
	}
	if err := protocoltest.Steps(mustNew(t, protocoltest.Procs(t, "P0", "P1", "P2")), steps); err != nil {
		t.Fatal(err)
	}
	// Alone, the initiator has nobody to wait for.
	alone := []protocoltest.Step{
		{In: tick(0), Want: []string{"checkpoint 1 basic sn=1"}},
		{In: tick(0), Want: []string{"checkpoint 2 basic sn=2"}},
	}
	if err := protocoltest.Steps(mustNew(t, protocoltest.Procs(t, "P0")), alone); err != nil {
		t.Fatal(err)
	}
}

func TestRefusesFailures(t *testing.T) { protocoltest.CheckRefusesFailures(t, newCoordinated) }
