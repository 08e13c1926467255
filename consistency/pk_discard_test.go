package consistency

import (
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// pkDiscardTrace: P1 fails right after sending m2 and replays its send
// (announcement (P1, inc 0, k 2)); P0 receives m2, sends m3 to P2 and
// crashes before logging it (announcement (P0, inc 0, k 0)). m3's copy 1
// reaches P2 after both tokens: PK discards it as an orphan of P0's
// failure (run seq 26).
func pkDiscardTrace(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1", "P2").
		Send(1.5, "P1", "P0", "m2").Fail(1.8, "P1").Recv(2, "P0", "m2").
		Send(2.5, "P0", "P2", "m3").Fail(3.5, "P0").Recv(9, "P2", "m3").Internal(10, "P1"))
}

// pkDiscardEdited is the PK run of pkDiscardTrace with its orphan discard
// (seq 26) edited.
func pkDiscardEdited(edit func(e *trace.RunEvent)) func(t *testing.T) *trace.Run {
	return func(t *testing.T) *trace.Run {
		return forge(t, replayOf(t, "pk", pkDiscardTrace(t)), 26, trace.Discard, edit)
	}
}

// pkDiscardEarly is that run with the discard moved before P2 records
// P0's announcement (seq 20): then it knows only P1's, which does not
// make the copy an orphan.
func pkDiscardEarly(t *testing.T) *trace.Run {
	run := replayOf(t, "pk", pkDiscardTrace(t))
	d := run.Events[26]
	if d.Kind != trace.Discard || run.Events[20].Kind != trace.ControlRecv || run.Events[20].P != d.P {
		t.Fatalf("seq 26 is a %s, seq 20 a %s: not the run expected", d.Kind, run.Events[20].Kind)
	}
	d.T = run.Events[19].T
	run = dropEvents(run, func(e *trace.RunEvent) bool { return e.Seq == 26 })
	return insertAt(run, 20, d)
}

// pkDiscardUnannounced is that run with P1 failing again at the end
// (seq 28), never to restart, and the discard naming that failure,
// which has made no recovery yet. The source trace has no such fail:
// the run is judged without it.
func pkDiscardUnannounced(t *testing.T) *trace.Run {
	run := replayOf(t, "pk", pkDiscardTrace(t))
	run = insertAt(run, 28, trace.NewRunEvent(trace.Fail, run.Events[27].T, 1))
	forge(t, run, 30, trace.End, func(e *trace.RunEvent) { e.State = trace.StateDown })
	return forge(t, run, 26, trace.Discard, func(e *trace.RunEvent) { e.Failure = 28 })
}

// TestPKDiscardReasons: each reason a PK discard may give, given where
// it does not hold, fails log-replay-rules with the reason's own
// witness (spec_pk.go, discard).
func TestPKDiscardReasons(t *testing.T) {
	src := pkDiscardTrace
	lrr := report.LogReplayRules
	checkRuleCases(t, []ruleCase{
		{name: "clean", run: pkDiscardEdited(func(*trace.RunEvent) {}), src: src, prop: lrr, status: pass},
		{name: "stale", src: src, prop: lrr, status: fail,
			run:     pkDiscardEdited(func(e *trace.RunEvent) { e.Reason = trace.ReasonStale }),
			witness: "P2 discards copy 1 of m3 at seq 26 as stale"},
		// Judged without the source trace: the discard moved comes
		// before its copy's arrival too, which equivalence fails.
		{name: "orphan-of-no-known-announcement", run: pkDiscardEarly, prop: lrr, status: fail,
			witness: "is no orphan of the 1 announcements P2 had recorded by seq 20"},
		{name: "orphan-names-no-fail", src: src, prop: lrr, status: fail,
			run:     pkDiscardEdited(func(e *trace.RunEvent) { e.Failure = 12 }),
			witness: "the run has no effective fail event at seq 12"},
		{name: "orphan-names-another-failure", src: src, prop: lrr, status: fail,
			run:     pkDiscardEdited(func(e *trace.RunEvent) { e.Failure = 1 }),
			witness: "its announcement (P1, inc 0, k 2) does not make it one"},
		{name: "orphan-names-unannounced-failure", run: pkDiscardUnannounced, prop: lrr, status: fail,
			witness: "failure seq 28 has made no recovery yet"},
		{name: "duplicate-of-nothing-live", src: src, prop: lrr, status: fail,
			run:     pkDiscardEdited(func(e *trace.RunEvent) { e.Reason, e.Failure = trace.ReasonDuplicate, trace.None }),
			witness: "P2's live history holds no receipt of m3 at seq 26, so the copy is no duplicate"},
		{name: "duplicate-names-failure", src: src, prop: lrr, status: fail,
			run:     pkDiscardEdited(func(e *trace.RunEvent) { e.Reason = trace.ReasonDuplicate }),
			witness: "it names failure seq 10, but a duplicate is discarded for the receipt it repeats"},
	})
}
