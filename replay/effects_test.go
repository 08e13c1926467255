package replay_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/replay/replaytest"
	"github.com/ckpt-dev/ckpt/trace"
)

// scripted behaves like Plain (checkpoint at every tick, deliver every
// copy) unless hook handles the input; it exercises the effects PK needs
// (instant replay with resends, requeue, holds, resume).
type scripted struct {
	*replay.Plain
	hook func(s *scripted, in *replay.Input, fx []replay.Effect) ([]replay.Effect, bool)
	// got[p] lists the copies p delivered, by op.
	got   [][]replay.CopyID
	sent  map[int32]replay.CopyID // op of P0 -> copy
	state map[string]int
	// ticks[p] counts p's ticks so far, the one being handled included.
	ticks []int
}

// holdOrResume holds p (until, if set) at one tick and resumes it at the
// next.
func (s *scripted) holdOrResume(p replay.Proc, until string) replay.Effect {
	key := fmt.Sprint("held ", p)
	if s.state[key] ^= 1; s.state[key] == 0 {
		return replay.Effect{Kind: replay.EffResume}
	}
	return replay.Effect{Kind: replay.EffHoldProcess, Until: until}
}

func (s *scripted) Step(in *replay.Input, fx []replay.Effect) []replay.Effect {
	if in.Kind == replay.InTick {
		s.ticks[in.P]++
	}
	if out, ok := s.hook(s, in, fx); ok {
		return out
	}
	if in.Kind == replay.InSend && in.P == 0 {
		s.sent[in.Op] = in.Copy
	}
	fx = s.Plain.Step(in, fx)
	if in.Kind == replay.InRecv {
		for len(s.got[in.P]) <= int(in.Op) {
			s.got[in.P] = append(s.got[in.P], replay.NoCopy)
		}
		s.got[in.P][in.Op] = in.Copy
	}
	return fx
}

func newScripted(n int, hook func(s *scripted, in *replay.Input, fx []replay.Effect) ([]replay.Effect, bool)) *scripted {
	return &scripted{Plain: replay.NewPlain(n), hook: hook, got: make([][]replay.CopyID, n),
		sent: map[int32]replay.CopyID{}, state: map[string]int{}, ticks: make([]int, n)}
}

func has(t *testing.T, run *trace.Run, want ...string) {
	t.Helper()
	ls := lines(run)
	i := 0
	// want must appear in this order.
	for _, l := range ls {
		if i < len(want) && strings.Contains(l, want[i]) {
			i++
		}
	}
	if i < len(want) {
		t.Errorf("run lacks %q (in order):\n%s", want[i], replaytest.Dump(run))
	}
}

// TestInstantReplayRestart: a restart that leaves P0 beyond its checkpoint
// re-transmits live sends (resend, of: 1, same piggyback) and runs the ops
// it had never executed, all before the restart event.
func TestInstantReplayRestart(t *testing.T) {
	tr, err := tracetest.NewBuilder("P0", "P1").
		Checkpoint(0.1, "P0").
		Send(0.2, "P0", "P1", "a").
		Internal(0.3, "P0").
		Fail(0.5, "P0").
		Send(0.6, "P0", "P1", "b").
		Recv(0.7, "P1", "a").
		Recv(0.9, "P1", "b").
		Build()
	if err != nil {
		t.Fatal(err)
	}
	alg := newScripted(2, func(s *scripted, in *replay.Input, fx []replay.Effect) ([]replay.Effect, bool) {
		if in.Kind != replay.InRestart {
			return fx, false
		}
		// Op 2 (send b) runs for the first time: its piggyback comes
		// with the restart.
		return append(fx, replay.Effect{Kind: replay.EffRestart, Ckpt: 1, Pos: 3, Resend: true, Inc: 1, Failure: in.Failure,
			Sends: []replay.SendPB{{Op: 2, PB: trace.NewPiggyback()}}}), true
	})
	run, err := replay.Run(tr, alg, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	has(t, run,
		`"t":0.7,"p":"P1","kind":"recv","msg":"a","from":"P0","op":0,"copy":1`,
		`"t":1.5,"p":"P0","kind":"send","msg":"a","to":"P1","op":0,"copy":2,"resend":true,"of":1`,
		`"t":1.5,"p":"P0","kind":"send","msg":"b","to":"P1","op":2,"copy":1`,
		`"t":1.5,"p":"P0","kind":"restart","pos":3,"restore":1,"undone":0,"inc":1`,
		`"t":1.8,"p":"P1","kind":"recv","msg":"b","from":"P0","op":1,"copy":1`,
		`"p":"P1","kind":"unconsumed","msg":"a","copy":2`)
}

// TestRequeueHoldResume: P1 delivers a and b, then a control message from
// P0 rolls it back to checkpoint 0 with a's copy requeued; P1 holds the
// re-executed receive of a, and at a tick holds the whole process until
// the next tick resumes it, when the receive is tried again.
func TestRequeueHoldResume(t *testing.T) {
	tr, err := tracetest.NewBuilder("P0", "P1").
		Send(0.1, "P0", "P1", "a").
		Recv(0.2, "P1", "a").
		Internal(0.3, "P1").
		Checkpoint(1.0, "P0").
		Checkpoint(2.0, "P1").
		Checkpoint(3.0, "P1").
		Checkpoint(4.0, "P1").
		Build()
	if err != nil {
		t.Fatal(err)
	}
	alg := newScripted(2, func(s *scripted, in *replay.Input, fx []replay.Effect) ([]replay.Effect, bool) {
		switch {
		case in.Kind == replay.InTick && in.P == 0:
			return append(fx, replay.Effect{Kind: replay.EffControl, To: 1, Control: trace.ControlToken}), true
		case in.Kind == replay.InControl && in.P == 1:
			s.state["rolled"] = 1
			return append(fx, replay.Effect{Kind: replay.EffRollback, Cause: trace.CauseToken, Requeue: []replay.CopyID{s.got[1][0]}}), true
		case in.Kind == replay.InRecv && s.state["rolled"] == 1 && s.state["retried"] == 0:
			return append(fx, replay.Effect{Kind: replay.EffHold, Until: "tick"}), true
		case in.Kind == replay.InTick && in.P == 1 && s.ticks[1] == 1: // at 2 s
			s.state["retried"] = 1
			return append(fx, replay.Effect{Kind: replay.EffHoldProcess}), true
		case in.Kind == replay.InTick && in.P == 1 && s.ticks[1] == 2: // at 3 s
			return append(fx, replay.Effect{Kind: replay.EffResume}), true
		case in.Kind == replay.InTick && in.P == 1:
			return fx, true
		}
		return fx, false
	})
	run, err := replay.Run(tr, alg, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	has(t, run,
		`"t":1,"p":"P0","kind":"control_send","to":"P1","control":"token"`,
		`"t":1.5,"p":"P1","kind":"control_recv","from":"P0","control":"token"`,
		`"t":1.5,"p":"P1","kind":"rollback","pos":0,"restore":0,"undone":2,"cause":"token"`,
		`"t":1.7,"p":"P1","kind":"hold","msg":"a","until":"tick"`,
		`"t":3,"p":"P1","kind":"resume"`,
		`"t":3.2,"p":"P1","kind":"unhold","msg":"a"`,
		`"t":3.2,"p":"P1","kind":"recv","msg":"a","from":"P0","op":0,"copy":1,"via":"net"`,
		`"t":3.3,"p":"P1","kind":"internal","op":1`,
		`"p":"P1","kind":"end","state":"done"`)
}

// TestRestartContract: the piggybacks of a restart's first-time sends
// come with EffRestart, one per such send; a missing or extra one, or a
// resend of an op that is no live send, is the algorithm's error, never a
// nested Step or a panic.
func TestRestartContract(t *testing.T) {
	tr, err := tracetest.NewBuilder("P0", "P1").
		Send(0.1, "P0", "P1", "a").
		Fail(0.5, "P0").
		Send(0.6, "P0", "P1", "b").
		Internal(0.7, "P0").
		Recv(0.9, "P1", "b").
		Build()
	if err != nil {
		t.Fatal(err)
	}
	pb := trace.NewPiggyback()
	for _, c := range []struct {
		name string
		fx   []replay.Effect
		want string
	}{
		{"missing piggyback", []replay.Effect{{Kind: replay.EffRestart, Pos: 3}}, "runs send op 1 for the first time without its piggyback"},
		{"extra piggyback", []replay.Effect{{Kind: replay.EffRestart, Pos: 3,
			Sends: []replay.SendPB{{Op: 1, PB: pb}, {Op: 2, PB: pb}}}}, "gives a piggyback for op 2"},
		{"piggyback for a live send", []replay.Effect{{Kind: replay.EffRestart, Pos: 1,
			Sends: []replay.SendPB{{Op: 0, PB: pb}}}}, "gives a piggyback for op 0"},
		{"resend of no live send", []replay.Effect{{Kind: replay.EffRestart, Pos: 1}, {Kind: replay.EffResend, Op: 1}}, "resends op 1, which is not a live send"},
		{"restart not first", []replay.Effect{{Kind: replay.EffHoldProcess}, {Kind: replay.EffRestart}}, "did not answer a restart with EffRestart"},
	} {
		t.Run(c.name, func(t *testing.T) {
			alg := newScripted(2, func(s *scripted, in *replay.Input, fx []replay.Effect) ([]replay.Effect, bool) {
				if in.Kind != replay.InRestart {
					return fx, false
				}
				return append(fx, c.fx...), true
			})
			_, err := replay.Run(tr, alg, replay.Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want %q", err, c.want)
			}
		})
	}
}

// TestBlockRecorded: a process hold that says what it waits for is
// written as a `block` event (once, however often the algorithm holds
// again before resuming), and a hold without Until writes nothing (PK's
// hold after a restart); the blocked time is block → resume.
func TestBlockRecorded(t *testing.T) {
	tr, err := tracetest.NewBuilder("P0", "P1").
		Checkpoint(1.0, "P0").
		Checkpoint(1.0, "P1").
		Checkpoint(1.5, "P0").
		Checkpoint(2.0, "P0").
		Checkpoint(2.5, "P1").
		Internal(3.0, "P0").
		Build()
	if err != nil {
		t.Fatal(err)
	}
	alg := newScripted(2, func(s *scripted, in *replay.Input, fx []replay.Effect) ([]replay.Effect, bool) {
		if in.Kind != replay.InTick {
			return fx, false
		}
		switch {
		case in.P == 0 && s.ticks[0] <= 2: // at 1 and 1.5 s
			return append(fx, replay.Effect{Kind: replay.EffHoldProcess, Until: "commit"}), true
		case in.P == 1 && s.ticks[1] == 1: // at 1 s
			return append(fx, replay.Effect{Kind: replay.EffHoldProcess}), true
		}
		return append(fx, replay.Effect{Kind: replay.EffResume}), true
	})
	run, err := replay.Run(tr, alg, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The block paused P0 for 1 s: its op, due at 3, runs at 4.
	has(t, run, `"t":1,"p":"P0","kind":"block","until":"commit"`, `"t":2,"p":"P0","kind":"resume"`, `"t":2.5,"p":"P1","kind":"resume"`, `"t":4,"p":"P0","kind":"internal","op":0`)
	blocks := 0
	for i := range run.Events {
		if run.Events[i].Kind == trace.Block {
			blocks++
		}
	}
	if blocks != 1 {
		t.Errorf("%d block events, want 1 (P0's second hold and P1's hold without Until write none):\n%s", blocks, replaytest.Dump(run))
	}
}

// cicSender sends with FDAS-like piggybacks: one CIC vector shared until
// a tick replaces it, its dv[0] the ticks so far.
type cicSender struct {
	*replay.Plain
	cic   *trace.CIC
	ticks int32
}

func (a *cicSender) Step(in *replay.Input, fx []replay.Effect) []replay.Effect {
	switch in.Kind {
	case replay.InTick:
		a.ticks++
		a.cic = &trace.CIC{LC: trace.None, DV: []int32{a.ticks, 0}}
	case replay.InSend:
		pb := trace.NewPiggyback()
		pb.CIC = a.cic
		return append(fx, replay.Effect{Kind: replay.EffPiggyback, PB: pb})
	}
	return a.Plain.Step(in, fx)
}

// TestPiggybackTableSharesCIC: consecutive sends that carry the same CIC
// vectors share one piggyback entry; a new vector makes a new entry, even
// if equal in value (identity is what the protocols guarantee).
func TestPiggybackTableSharesCIC(t *testing.T) {
	tr, err := tracetest.NewBuilder("P0", "P1").
		Checkpoint(1, "P0").
		Send(1.1, "P0", "P1", "a").
		Send(1.2, "P0", "P1", "b").
		Checkpoint(2, "P0").
		Send(2.1, "P0", "P1", "c").
		Build()
	if err != nil {
		t.Fatal(err)
	}
	run, err := replay.Run(tr, &cicSender{Plain: replay.NewPlain(2)}, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var pbs []int32
	for i := range run.Events {
		if e := &run.Events[i]; e.Kind == trace.Send {
			pbs = append(pbs, e.PB)
			if got := run.PB(e).CIC.DV[0]; got != int32(e.T/trace.Second) {
				t.Errorf("%s carries dv[0] = %d", run.Msgs[e.Msg], got)
			}
		}
	}
	if len(pbs) != 3 || pbs[0] != pbs[1] || pbs[1] == pbs[2] {
		t.Errorf("piggyback indexes %v, want a, b sharing and c apart", pbs)
	}
}

// TestBlockPauses: a block pauses the process's computation. P0's only
// op is due 5 s into the run, and P0 is blocked for half of every second
// from t=1 to t=10.5: it has computed 5 s at t=9, and runs its op then.
// Under SPEC §3's rule for holds (the gap restarts in full at each
// resume) it would wait for 5 s without a block, i.e. until the blocks
// end, at 15.5: a process whose gap is longer than the time between two
// blocks starves while they go on (coordinated checkpointing's rounds).
// A hold without Until keeps that rule (PK).
func TestBlockPauses(t *testing.T) {
	b := tracetest.NewBuilder("P0")
	for k := 1; k <= 10; k++ {
		if k == 5 {
			b.Internal(5, "P0")
		}
		b.Checkpoint(float64(k), "P0").Checkpoint(float64(k)+0.5, "P0")
	}
	tr, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		until, want string
	}{{"commit", `"t":9,"p":"P0","kind":"internal","op":0`}, {"", `"t":15.5,"p":"P0","kind":"internal","op":0`}} {
		alg := newScripted(1, func(s *scripted, in *replay.Input, fx []replay.Effect) ([]replay.Effect, bool) {
			if in.Kind != replay.InTick {
				return fx, false
			}
			return append(fx, s.holdOrResume(in.P, c.until)), true
		})
		run, err := replay.Run(tr, alg, replay.Options{})
		if err != nil {
			t.Fatal(err)
		}
		has(t, run, c.want)
	}
}

// TestBlockOfAWaitingReceive: P1's receive is ready at 0.3 and waits for
// m, which P0's block delays; P1 is blocked from 0.5 to 2. The receive,
// ready before the block began, is ready again at the resume — not
// 1.5 s after its first ready time, which is in the past — and the run
// stays in time order.
func TestBlockOfAWaitingReceive(t *testing.T) {
	tr, err := tracetest.NewBuilder("P0", "P1").
		Checkpoint(0.05, "P0").
		Send(0.1, "P0", "P1", "m").
		Recv(0.3, "P1", "m").
		Checkpoint(0.5, "P1").
		Checkpoint(1.0, "P0").
		Checkpoint(2.0, "P1").
		Build()
	if err != nil {
		t.Fatal(err)
	}
	alg := newScripted(2, func(s *scripted, in *replay.Input, fx []replay.Effect) ([]replay.Effect, bool) {
		if in.Kind != replay.InTick {
			return fx, false
		}
		return append(fx, s.holdOrResume(in.P, "commit")), true
	})
	run, err := replay.Run(tr, alg, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	has(t, run, `"t":1,"p":"P0","kind":"resume"`, `"t":1.05,"p":"P0","kind":"send","msg":"m"`, `"t":2,"p":"P1","kind":"resume"`, `"t":2,"p":"P1","kind":"recv","msg":"m"`)
	for i := 1; i < len(run.Events); i++ {
		if run.Events[i].T < run.Events[i-1].T {
			t.Fatalf("event %d goes back in time:\n%s", i, replaytest.Dump(run))
		}
	}
}
