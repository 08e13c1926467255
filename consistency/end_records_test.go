package consistency

import (
	"testing"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// Each branch of endRecord (spec_run_end.go) on a run whose end record
// breaks that branch alone. forgedcases_test.go has runs for some of
// them, but their witnesses name only the record ("P1's end at seq 29
// says …"), which every branch writes: here the witness is the branch's
// own reason.

// msEnd is msFailureRun with the end record at seq (14 is P0's, 15
// P1's) edited.
func msEnd(seq int32, edit func(run *trace.Run, e *trace.RunEvent)) func(t *testing.T) *trace.Run {
	return func(t *testing.T) *trace.Run {
		run := msFailureRun(msOpts{})
		return forge(t, run, seq, trace.End, func(e *trace.RunEvent) { edit(run, e) })
	}
}

// msDownAtEnd is msFailureRun cut right after P0's crash, both
// processes then saying they are done.
func msDownAtEnd(t *testing.T) *trace.Run {
	run := msFailureRun(msOpts{})
	fail := run.Events[6]
	if fail.Kind != trace.Fail {
		t.Fatalf("seq 6 is a %s, not P0's fail", fail.Kind)
	}
	run.Events = run.Events[:7]
	for p := range int32(2) {
		e := trace.NewRunEvent(trace.End, fail.T, p)
		e.State = trace.StateDone
		run.Events = append(run.Events, e)
	}
	return renumber(run)
}

// msStuckAfterRestart is msFailureRun without P0's re-execution of its
// internal op 1 (seq 12), its end at seq 13 edited: P0 is stuck at op 1,
// which the run showed as an internal event before the crash.
func msStuckAfterRestart(edit func(e *trace.RunEvent)) func(t *testing.T) *trace.Run {
	return func(t *testing.T) *trace.Run {
		run := dropEvents(msFailureRun(msOpts{}), func(e *trace.RunEvent) bool { return e.Seq == 12 })
		return forge(t, run, 13, trace.End, edit)
	}
}

// msHeldReceive is msFailureRun in which P1 holds the re-sent copy of
// m1 (hold at seq 13) and ends blocked on it, the copy listed
// unconsumed.
func msHeldReceive(t *testing.T) *trace.Run {
	run := msFailureRun(msOpts{discardResent: true})
	forge(t, run, 13, trace.Discard, func(e *trace.RunEvent) {
		e.Kind, e.Reason, e.Copy, e.Failure = trace.Hold, trace.ReasonNone, trace.None, trace.None
	})
	u := trace.NewRunEvent(trace.Unconsumed, run.Events[15].T, 1)
	u.Msg, u.Copy = msgID(run, "m1"), 2
	run.Events = append(run.Events, u)
	return renumber(run)
}

// pkTokenLost is the PK run of the domino trace cut where P1 resends y2
// (seq 25): P0's token never returns, and P0 ends blocked at op 4 on
// y2, whose resent copy it lists unconsumed.
func pkTokenLost(t *testing.T) *trace.Run {
	run := replayOf(t, "pk", bundled("domino")(t))
	run = dropEvents(run, func(e *trace.RunEvent) bool { return e.Seq >= 26 && e.Seq <= 30 })
	forge(t, run, 26, trace.End, func(e *trace.RunEvent) { e.State, e.Op, e.Msg = trace.StateBlocked, 4, msgID(run, "y2") })
	u := trace.NewRunEvent(trace.Unconsumed, run.Events[26].T, 0)
	u.Msg, u.Copy = msgID(run, "y2"), 2
	return insertAt(run, 27, u)
}

func TestEndRecordBranches(t *testing.T) {
	msSrc := func(t *testing.T) *trace.Trace { return msSource(t, false) }
	blocked := func(op int32, msg string) func(run *trace.Run, e *trace.RunEvent) {
		return func(run *trace.Run, e *trace.RunEvent) {
			e.State, e.Op, e.Msg = trace.StateBlocked, op, trace.None
			if msg != "" {
				e.Msg = msgID(run, msg)
			}
		}
	}
	down := func(run *trace.Run, e *trace.RunEvent) { e.State = trace.StateDown }
	checkRuleCases(t, []ruleCase{
		{name: "done-while-down", run: msDownAtEnd, src: msSrc, prop: report.Equivalence, status: fail,
			witness: "P0's end at seq 7 says done"},
		{name: "down-never-failed", run: msEnd(15, down), src: msSrc, prop: report.Equivalence, status: fail,
			witness: "P1 is up at the end: it never failed"},
		{name: "down-after-restart", run: msEnd(14, down), src: msSrc, prop: report.Equivalence, status: fail,
			witness: "P0 is up at the end: its failure at seq 6 ended with its restart at seq 7"},
		{name: "stuck-at-wrong-op", run: msEnd(15, blocked(1, "m1")), src: msSrc, prop: report.Equivalence, status: fail,
			witness: "its final live history has 2 ops, so it is stuck at op 2, not op 1"},
		{name: "stuck-after-whole-program", run: msEnd(15, blocked(trace.None, "")), src: msSrc, prop: report.Equivalence, status: fail,
			witness: "P1 has run its whole program (2 ops), so it is done, not blocked"},
		{name: "stuck-on-wrong-message", src: nil, prop: report.Equivalence, status: fail,
			run:     msStuckAfterRestart(func(e *trace.RunEvent) { e.State, e.Op, e.Msg = trace.StateBlocked, 1, 0 }),
			witness: "op 1 of P0's program, where it is stuck, is internal, not a receive of m1"},
		{name: "blocked-at-no-receive", src: nil, prop: report.Equivalence, status: fail,
			run:     msStuckAfterRestart(func(e *trace.RunEvent) { e.State, e.Op = trace.StateBlocked, 1 }),
			witness: "op 1 of P0's program, where it is stuck, is internal, which waits for no message"},
		{name: "held-after-resume", prop: report.Equivalence, status: fail,
			run: func(t *testing.T) *trace.Run {
				return forge(t, replayOf(t, "pk", bundled("domino")(t)), 31, trace.End, func(e *trace.RunEvent) { e.State = trace.StateHeld })
			},
			witness: "nothing holds P0 at the end: every hold has its unhold, every block its resume, and its restart at seq 22 was followed by its resume"},
		// The made-up hold is no MS hold (spec_holds.go): log-replay-rules fails too.
		{name: "blocked-while-hold", run: msHeldReceive, prop: report.Equivalence, status: fail,
			also:    map[string]report.Status{report.NoLostMessages: fail, report.LogReplayRules: fail},
			witness: "the hold at seq 13 still holds P1 at the end (no unhold, restore or failure after it), so it ended held"},
		{name: "blocked-while-token-away", run: pkTokenLost, prop: report.Equivalence, status: fail,
			witness: "the restart at seq 22 still holds P0 at the end (no resume (its token did not return) after it), so it ended held",
			also:    map[string]report.Status{report.NoLostMessages: fail, report.LogReplayRules: fail}},
	})
}
