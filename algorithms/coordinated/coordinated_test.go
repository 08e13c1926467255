package coordinated

import (
	"fmt"
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

// ctl is a control message of the given kind and round r from `from`
// arriving at p.
func ctl(kind trace.Control, p, from replay.Proc, r int32) replay.Input {
	b := trace.NewControlBody()
	b.Origin, b.Count = 0, r // P0 initiates: no trace here has ticks
	return replay.Input{Kind: replay.InControl, P: p, Peer: from, Control: kind, Body: &b}
}

// TestStep: one round over three processes, input by input.
func TestStep(t *testing.T) {
	tick := protocoltest.Tick
	req, ack, commit := trace.ControlRequest, trace.ControlAck, trace.ControlCommit
	out := func(kind trace.Control, to replay.Proc, r int32) string {
		return fmt.Sprintf("control %s to=%d origin=0 count=%d", kind, to, r)
	}
	steps := []protocoltest.Step{
		{In: tick(0), Want: []string{"checkpoint 1 basic sn=1", "hold until=commit", out(req, 1, 1), out(req, 2, 1)}},
		{In: tick(0), Want: []string{"skip sn=1 reason=in-round"}},
		{In: tick(2), Want: []string{"skip reason=not-initiator"}}, // before any round: sn 0 is absent
		{In: ctl(req, 1, 0, 1), Want: []string{"checkpoint 1 basic sn=1", "hold until=commit", out(ack, 0, 1)}},
		{In: ctl(req, 1, 0, 1), Want: nil},    // answered already
		{In: ctl(ack, 0, 1, 1), Want: nil},    // one acknowledgement of two
		{In: ctl(ack, 0, 1, 7), Want: nil},    // not this round's
		{In: ctl(commit, 2, 0, 1), Want: nil}, // P2 has not joined
		{In: ctl(req, 2, 0, 1), Want: []string{"checkpoint 1 basic sn=1", "hold until=commit", out(ack, 0, 1)}},
		{In: ctl(ack, 0, 2, 1), Want: []string{out(commit, 1, 1), out(commit, 2, 1), "resume"}},
		{In: ctl(commit, 1, 0, 1), Want: []string{"resume"}},
		{In: ctl(commit, 1, 0, 1), Want: nil}, // resumed already
		{In: protocoltest.Send(1, 2), Want: []string{"piggyback"}},
		{In: protocoltest.Recv(2, 1, trace.NewPiggyback()), Want: []string{"deliver"}},
		{In: tick(0), Want: []string{"checkpoint 2 basic sn=2", "hold until=commit", out(req, 1, 2), out(req, 2, 2)}},
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

// TestInitiatorMostTicks: the initiator is the process with the most
// ticks, the first among equals — not the first process, which a real
// log (ShiViz's chord) may give no timer at all, leaving coordinated
// checkpointing without a single round.
func TestInitiatorMostTicks(t *testing.T) {
	b := trace.NewBuilder("P0", "P1", "P2")
	b.Send(0.1, "P0", "P1", "m1")
	b.Recv(0.2, "P1", "m1")
	b.Checkpoint(0.3, "P1")
	b.Checkpoint(0.4, "P2")
	b.Checkpoint(1.5, "P2")
	b.Checkpoint(2.6, "P1")
	b.Checkpoint(3.7, "P2")
	tr, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if got := Initiator(tr); got != 2 {
		t.Errorf("initiator P%d, want P2 (3 ticks; P1 has 2, P0 none)", got)
	}
	run := protocoltest.Replay(t, tr, mustNew(t, tr))
	if c := protocoltest.CountsOf(run); c.Basic != 3*3 || c.Control != 3*3*2 {
		t.Errorf("counts %+v: want 3 rounds of 3 checkpoints and 6 control messages", c)
	}
	tie := trace.NewBuilder("P0", "P1", "P2")
	tie.Checkpoint(0.1, "P2")
	tie.Checkpoint(0.2, "P1")
	if tr, err := tie.Build(); err != nil || Initiator(tr) != 1 {
		t.Errorf("tie: initiator P%d (%v), want P1, the first among equals", Initiator(tr), err)
	}
}
