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
	b.Origin, b.Count = int32(Initiator), r
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
