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
