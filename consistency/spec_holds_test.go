package consistency

import (
	"testing"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/tracetest"
)

// The holds the red team of issue 28 forged (spec_holds.go): each an
// engine run with one thing edited, which the checker before passed.

// lostTrace: P0 fails and restarts first; later it sends m to P1, which
// receives it.
func lostTrace(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1").
		Fail(0.2, "P0").Send(3, "P0", "P1", "m").Recv(4, "P1", "m"))
}

// plainTrace: P0 sends m to P1, which receives it; nothing else.
func plainTrace(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1").Send(1, "P0", "P1", "m").Recv(2, "P1", "m"))
}

// twiceFailed: P0 fails twice before sending b, whose copy reaches P1
// before either Rollback request (control_delay 10): P1 holds b for
// P0's first failure.
func twiceFailed(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1").Params(trace.Params{ControlDelay: 10 * trace.Second}).
		Checkpoint(0.1, "P0").Fail(0.6, "P0").Fail(2, "P0").Send(3.5, "P0", "P1", "b").Recv(4, "P1", "b"))
}

// lostHeld is alg's run of lostTrace with P1's receipt of m dropped,
// m's copy listed unconsumed, and a made-up hold of m (naming failure,
// a seq of the replayed run) explaining P1's end `held` at op 0: m is
// lost, hidden by the hold.
func lostHeld(alg string, failure int32) func(t *testing.T) *trace.Run {
	return func(t *testing.T) *trace.Run {
		run := replayOf(t, alg, lostTrace(t))
		m := msgID(run, "m")
		run = dropEvents(run, func(e *trace.RunEvent) bool { return e.Kind == trace.Recv && e.Msg == m })
		end := firstOf(t, run, trace.End)
		h := trace.NewRunEvent(trace.Hold, run.Events[end].T, 1)
		h.Msg, h.Until, h.Failure = m, run.AddString("anything"), failure
		run = insertAt(run, end, h)
		for i := range run.Events {
			if e := &run.Events[i]; e.Kind == trace.End && e.P == 1 {
				e.State, e.Op, e.Msg = trace.StateHeld, 0, trace.None
			}
		}
		u := trace.NewRunEvent(trace.Unconsumed, run.Events[len(run.Events)-1].T, 1)
		u.Msg, u.Copy = m, 1
		return insertAt(run, int32(len(run.Events)), u)
	}
}

// heldRun is alg's (variant's) run of src with a hold of its message at
// the receipt of msg inserted before it, naming the first fail.
func heldRun(alg, variant, msg string, src func(*testing.T) *trace.Trace) func(t *testing.T) *trace.Run {
	return func(t *testing.T) *trace.Run {
		run := protocolRun(t, alg, variant, src(t))
		m := msgID(run, msg)
		for i := range run.Events {
			if e := run.Events[i]; e.Kind == trace.Recv && e.Msg == m {
				h := trace.NewRunEvent(trace.Hold, e.T, e.P)
				h.Msg, h.Until, h.Failure = m, run.AddString("anything"), trace.None
				if f := firstOfKind(run, trace.Fail); f >= 0 {
					h.Failure = f
				}
				return insertAt(run, int32(i), h)
			}
		}
		t.Fatalf("no receipt of %s", msg)
		return nil
	}
}

// firstOfKind returns the seq of run's first event of kind, or -1.
func firstOfKind(run *trace.Run, kind trace.Kind) int32 {
	for i := range run.Events {
		if run.Events[i].Kind == kind {
			return int32(i)
		}
	}
	return -1
}

// heldThenRolledBack: P1 receives a, which P0's fail loses, and then
// holds b, from P0's next incarnation, until P0's Rollback request
// (control_delay 3) arrives and rolls it back; the engine writes the
// unhold (seq 11) just before the rollback.
func heldThenRolledBack(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1").Params(trace.Params{ControlDelay: 3 * trace.Second}).
		Checkpoint(0.1, "P1").Send(0.2, "P0", "P1", "a").Recv(0.3, "P1", "a").Fail(0.6, "P0").
		Send(2, "P0", "P1", "b").Recv(2.1, "P1", "b"))
}

// heldBy is the MS run of src with its hold's failure (or its unhold's
// message or failure, kind unhold) edited.
func heldBy(src func(*testing.T) *trace.Trace, kind trace.Kind, edit func(run *trace.Run, e *trace.RunEvent)) func(t *testing.T) *trace.Run {
	return func(t *testing.T) *trace.Run {
		run := replayOf(t, "ms", src(t))
		return forge(t, run, firstOf(t, run, kind), kind, func(e *trace.RunEvent) { edit(run, e) })
	}
}

// TestSpecHolds judges the forged holds, and the replay the unhold cases
// forge, which is valid (holdCases are forgeries only).
func TestSpecHolds(t *testing.T) {
	checkRuleCases(t, append(holdCases(), ruleCase{name: "ms-unhold-replayed", src: heldThenRolledBack, prop: report.LogReplayRules, status: report.Pass,
		run: func(t *testing.T) *trace.Run { return replayOf(t, "ms", heldThenRolledBack(t)) }},
		// A recorded run's receipt comes a little after its unhold, at
		// the system's clock: the order is judged, not the instant.
		ruleCase{name: "ms-unhold-recorded-receipt-later", src: futureHold, prop: report.LogReplayRules, status: report.Pass,
			run: receiptAfterUnhold(trace.TimingRecorded)},
		ruleCase{name: "ms-unhold-replay-receipt-later", src: futureHold, prop: report.LogReplayRules, status: fail,
			run: receiptAfterUnhold(""), witness: "is followed by P1's recv", also: map[string]report.Status{report.Equivalence: fail}}))
}

// receiptAfterUnhold is futureHold's replay, its options' timing set to
// timing, the unhold a millisecond after the recovery checkpoint before
// it and the receipt that ends the hold, with the rest, one more later.
func receiptAfterUnhold(timing string) func(t *testing.T) *trace.Run {
	return func(t *testing.T) *trace.Run {
		run := replayOf(t, "ms", futureHold(t))
		run.Options.Timing = timing
		u := firstOf(t, run, trace.Unhold)
		if run.Events[u+1].Kind != trace.Recv {
			t.Fatalf("futureHold's replay: %v after the unhold, not its receipt", run.Events[u+1].Kind)
		}
		ms := trace.Second / 1000
		run.Events[u].T += ms
		for i := u + 1; int(i) < len(run.Events); i++ {
			run.Events[i].T += 2 * ms
		}
		return run
	}
}

// holdCases are the forged holds, as rule cases.
func holdCases() []ruleCase {
	lrr := report.LogReplayRules
	return []ruleCase{
		// A lost message hidden by a made-up hold and `end: held`, with
		// a real fail named and with none.
		{name: "ms-lost-held", prop: lrr, status: fail, run: lostHeld("ms", 0),
			witness: "P1 holds m at seq"},
		{name: "ms-lost-held-no-failure", prop: lrr, status: fail, run: lostHeld("ms", 999),
			witness: "P1 holds m at seq"},
		{name: "pk-lost-held", prop: lrr, status: fail, run: lostHeld("pk", 0),
			witness: "P1 holds m at seq"},
		// futureHold's genuine hold naming no fail, or the request's
		// failure's restart instead.
		{name: "ms-hold-failure-999", src: futureHold, prop: lrr, status: fail,
			run:     heldBy(futureHold, trace.Hold, func(_ *trace.Run, e *trace.RunEvent) { e.Failure = 999 }),
			witness: "failure seq 999 has made no recovery yet"},
		{name: "ms-hold-failure-restart", src: futureHold, prop: lrr, status: fail,
			run:     heldBy(futureHold, trace.Hold, func(run *trace.Run, e *trace.RunEvent) { e.Failure = firstOfKind(run, trace.Restart) }),
			witness: "P1 holds b at seq"},
		// twiceFailed's hold naming P0's second failure: P1 awaits the
		// first's request first.
		{name: "ms-hold-later-recovery", src: twiceFailed, prop: lrr, status: fail,
			run: func(t *testing.T) *trace.Run {
				run := replayOf(t, "ms", twiceFailed(t))
				var fails []int32
				for i := range run.Events {
					if run.Events[i].Kind == trace.Fail {
						fails = append(fails, int32(i))
					}
				}
				return forge(t, run, firstOf(t, run, trace.Hold), trace.Hold, func(e *trace.RunEvent) { e.Failure = fails[1] })
			},
			witness: "is not the next of its origin's"},
		// An unhold of another message than the held one.
		{name: "ms-unhold-other", src: futureHold, prop: lrr, status: fail,
			run: heldBy(futureHold, trace.Unhold, func(run *trace.Run, e *trace.RunEvent) {
				run.Msgs = append(run.Msgs, "zz")
				e.Msg = int32(len(run.Msgs) - 1)
			}),
			witness: "releases zz, not the held b"},
		// heldThenRolledBack's unhold, which the engine writes just
		// before the rollback that ends the hold: deleted, moved before
		// the request's arrival, or naming another failure (the red
		// team's forgeries, each passed).
		{name: "ms-unhold-deleted", src: heldThenRolledBack, prop: lrr, status: fail,
			run: func(t *testing.T) *trace.Run {
				run := replayOf(t, "ms", heldThenRolledBack(t))
				return removeAt(run, []int32{firstOf(t, run, trace.Unhold)})
			},
			witness: "ends the hold at seq 9 without an unhold"},
		{name: "ms-unhold-before-request", src: heldThenRolledBack, prop: lrr, status: fail,
			run: func(t *testing.T) *trace.Run {
				run := replayOf(t, "ms", heldThenRolledBack(t))
				return moveEvent(run, firstOf(t, run, trace.Unhold), firstOf(t, run, trace.ControlRecv), 4.6)
			},
			witness: "is followed by P1's control_recv"},
		{name: "ms-unhold-failure", src: heldThenRolledBack, prop: lrr, status: fail,
			run:     heldBy(heldThenRolledBack, trace.Unhold, func(run *trace.Run, e *trace.RunEvent) { e.Failure = firstOfKind(run, trace.Restart) }),
			witness: "is followed by P1's rollback at seq 12"},
		// The textbook variant and the placement protocols never hold.
		{name: "textbook-hold", src: plainTrace, prop: lrr, status: fail, run: heldRun("ms", "textbook", "m", plainTrace),
			witness: "the textbook variant never holds a receive", besides: []string{"without an unhold"}},
		{name: "bcs-hold", src: forcedTrace, prop: lrr, status: fail, run: heldRun("bcs", "", "m", forcedTrace),
			witness: "BCS never holds a receive"},
	}
}
