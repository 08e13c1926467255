package consistency

import (
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// MS takes a forced checkpoint only right before delivering a message
// numbered above its sn, numbered as that message (SPEC §4.1;
// msForcedThenDeliver). Found by an adversarial review: a timer tick's
// checkpoint relabelled forced, checked against the trace without that
// tick, let a crash restore it and undo nothing, and every rule passed.

// forcedByMessage: P0's tick numbers its checkpoint 1 and m then forces
// P1 to take checkpoint 1 before its receipt.
func forcedByMessage(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1").
		Checkpoint(0.5, "P0").Send(0.6, "P0", "P1", "m").Recv(0.7, "P1", "m").Internal(0.8, "P1"))
}

// tickThenWork: P1 ticks at 0.5 and works on; tickless is the same
// trace without the tick.
func tickThenWork(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1").
		Internal(0.1, "P1").Checkpoint(0.5, "P1").Internal(0.6, "P1").Internal(0.7, "P0"))
}

func tickless(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1").
		Internal(0.1, "P1").Internal(0.6, "P1").Internal(0.7, "P0"))
}

// firstCkpt returns the seq of the first checkpoint of type typ.
func firstCkpt(t *testing.T, run *trace.Run, typ trace.CkptType) int32 {
	t.Helper()
	for i := range run.Events {
		if e := &run.Events[i]; e.Kind == trace.Checkpoint && e.CkptType == typ {
			return int32(i)
		}
	}
	t.Fatalf("no %s checkpoint in the run", typ)
	return 0
}

func TestMSForcedCheckpointForcesADelivery(t *testing.T) {
	lrr := report.LogReplayRules
	relabelled := func(t *testing.T) *trace.Run {
		run := replayOf(t, "ms", tickThenWork(t))
		return forge(t, run, firstCkpt(t, run, trace.CkptBasic), trace.Checkpoint, func(e *trace.RunEvent) {
			e.CkptType = trace.CkptForced
		})
	}
	checkRuleCases(t, []ruleCase{
		{name: "forced-before-its-message", run: func(t *testing.T) *trace.Run { return replayOf(t, "ms", forcedByMessage(t)) },
			src: forcedByMessage, prop: lrr, status: report.Pass},
		{name: "tick-relabelled-forced", run: relabelled, src: tickless, prop: lrr, status: report.Fail,
			witness: "P1's forced checkpoint 1 at seq 1 forces no delivery"},
	})
}

// TestMSSkipsOnlyWhenNotDue: MS skips a tick of an up process only when
// its number is not above sn (msSkip). Found by the same review: a
// skip where the checkpoint was due passed, and a crash then restored
// an older checkpoint. tickTwice's second tick is not due after m forced
// checkpoint 2; the first tick's checkpoint forged into a skip is.
func TestMSSkipsOnlyWhenNotDue(t *testing.T) {
	tickTwice := func(t *testing.T) *trace.Trace {
		return mustBuild(t, tracetest.NewBuilder("P0", "P1").
			Checkpoint(0.2, "P0").Checkpoint(0.3, "P0").Send(0.4, "P0", "P1", "m").Recv(0.5, "P1", "m").
			Checkpoint(0.6, "P1").Internal(0.7, "P1"))
	}
	skipped := func(t *testing.T) *trace.Run {
		run := replayOf(t, "ms", tickThenWork(t))
		return forge(t, run, firstCkpt(t, run, trace.CkptBasic), trace.Checkpoint, func(e *trace.RunEvent) {
			*e = trace.RunEvent{T: e.T, Seq: e.Seq, P: e.P, Kind: trace.CheckpointSkipped, Next: 1, Sn: 0,
				Peer: trace.None, Msg: trace.None, Op: trace.None, Ckpt: trace.None, Restore: trace.None, Pos: trace.None,
				Undone: trace.None, Inc: trace.None, Failure: trace.None, PB: trace.None, VT: trace.None, Body: trace.None,
				Until: trace.None, Label: trace.None}
		})
	}
	lrr := report.LogReplayRules
	checkRuleCases(t, []ruleCase{
		{name: "skip-not-due", run: func(t *testing.T) *trace.Run { return replayOf(t, "ms", tickTwice(t)) },
			src: tickTwice, prop: lrr, status: report.Pass},
		{name: "skip-when-due", run: skipped, src: tickThenWork, prop: lrr, status: report.Fail,
			witness: "P1 skips its timer tick 1 at seq 1 although its sn is 0"},
	})
}

// adoptedThenForced: P0's recovery (inc 1, rec_line 1) reaches P1 first
// in m, sent after P0's restart with sn 2 (its request is slow): textbook
// P1 adopts inc 1 by recovery checkpoint 1 (seq 6), then m's sn forces
// checkpoint 2 (seq 7) before its receipt (seq 8), all at t=6.3.
func adoptedThenForced(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1").Params(trace.Params{ControlDelay: 5 * trace.Second}).
		Checkpoint(1, "P0").Fail(2, "P0").Checkpoint(3.1, "P0").Send(3.2, "P0", "P1", "m").Recv(3.3, "P1", "m").Internal(4, "P1"))
}

// TestMSTextbookForcedAfterAdoption: the forced checkpoint between a
// textbook adoption and its delivery is a step of the adoption, at its
// instant (msSpec.fulfils); at another instant the adoption is unmet.
func TestMSTextbookForcedAfterAdoption(t *testing.T) {
	lrr := report.LogReplayRules
	run := func(t *testing.T) *trace.Run { return replayVariant(t, "textbook", adoptedThenForced(t)) }
	earlier := func(t *testing.T) *trace.Run {
		r := run(t)
		return forge(t, r, 6, trace.Checkpoint, func(e *trace.RunEvent) { e.T = r.Events[5].T })
	}
	checkRuleCases(t, []ruleCase{
		{name: "adopt-force-deliver", run: run, src: adoptedThenForced, prop: lrr, status: report.Pass},
		{name: "adoption-instant-earlier", run: earlier, src: adoptedThenForced, prop: lrr, status: report.Fail,
			witness: "P1's recovery checkpoint at seq 6 adopts no message"},
	})
}
