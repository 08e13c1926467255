package consistency

import (
	"testing"

	"github.com/ckpt-dev/ckpt/consistency/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// The PK flush rule's instant (history/flushes.go). A flush at t writes
// the volatile log as log events at t, so the checker judges it only once
// every event at t is in (flushesBefore takes flushes strictly before the
// next event's time): a log event at the flush's own instant counts, one
// later does not. And the trace may order a receipt at t after the flush
// (flushed checks only receipts strictly before t): a receipt at the
// flush's instant needs no log, one earlier does. Each boundary has a
// case on either side; the passing ones are replays as the engine writes
// them.

// flushAfterRecv: P0 receives m1 at 0.2 and flushes at 0.5, which logs
// the receipt at 0.5 (run seq 2).
func flushAfterRecv(t *testing.T) *trace.Trace {
	return mustBuild(t, trace.NewBuilder("P0", "P1").
		Send(0.1, "P1", "P0", "m1").Recv(0.2, "P0", "m1").Flush(0.5, "P0").Internal(0.6, "P0"))
}

// tickAfterRecv: as flushAfterRecv with a timer tick instead of the
// flush: the checkpoint flushes first, which logs the receipt at 0.5.
func tickAfterRecv(t *testing.T) *trace.Trace {
	return mustBuild(t, trace.NewBuilder("P0", "P1").
		Send(0.1, "P1", "P0", "m1").Recv(0.2, "P0", "m1").Checkpoint(0.5, "P0").Internal(0.6, "P0"))
}

// unflushed ends the witness of a log event no flush or tick made.
const unflushed = "where it neither flushes nor ticks"

// flushThenRecv: P0 flushes at 0.5, then receives m1 at the same
// instant (run seq 1); nothing logs the receipt.
func flushThenRecv(t *testing.T) *trace.Trace {
	return mustBuild(t, trace.NewBuilder("P0", "P1").
		Send(0.1, "P1", "P0", "m1").Flush(0.5, "P0").Recv(0.5, "P0", "m1").Internal(0.6, "P0"))
}

// retimed returns the PK run of src with the event at seq, of kind, at
// time t (in seconds).
func retimed(src func(*testing.T) *trace.Trace, seq int32, kind trace.Kind, t float64) func(*testing.T) *trace.Run {
	return func(tt *testing.T) *trace.Run {
		return forge(tt, replayOf(tt, "pk", src(tt)), seq, kind, func(e *trace.RunEvent) {
			e.T = trace.Time(t * float64(trace.Second))
		})
	}
}

func TestPKFlushInstant(t *testing.T) {
	replayed := func(src func(*testing.T) *trace.Trace) func(*testing.T) *trace.Run {
		return func(t *testing.T) *trace.Run { return replayOf(t, "pk", src(t)) }
	}
	lrr := report.LogReplayRules
	checkRuleCases(t, []ruleCase{
		{name: "log-at-flush-instant", run: replayed(flushAfterRecv), src: flushAfterRecv, prop: lrr, status: pass},
		{name: "log-after-flush-instant", run: retimed(flushAfterRecv, 2, trace.Log, 0.55), src: flushAfterRecv,
			prop: lrr, status: fail, witness: "P0's flush at t=0.5 leaves its receipt of m1 at seq 1 off stable storage",
			besides: []string{unflushed}},
		// The converse: a log event where nothing flushes made a receipt
		// stable that a crash would lose (history.LogUnflushed).
		{name: "log-before-flush-instant", run: retimed(flushAfterRecv, 2, trace.Log, 0.3), src: flushAfterRecv,
			prop: lrr, status: fail, witness: "P0 logs its receipt of m1 (op 0) at seq 2, t=0.3, " + unflushed},
		{name: "log-at-tick-instant", run: replayed(tickAfterRecv), src: tickAfterRecv, prop: lrr, status: pass},
		// Without the source trace nothing says when PK flushed.
		{name: "log-before-flush-no-source", run: retimed(flushAfterRecv, 2, trace.Log, 0.3),
			prop: lrr, status: pass, also: map[string]report.Status{report.Equivalence: report.Unknown}},
		{name: "receipt-at-flush-instant", run: replayed(flushThenRecv), src: flushThenRecv, prop: lrr, status: pass},
		// (The receipt also comes before its copy arrives: equivalence_times.go.)
		{name: "receipt-before-flush-instant", run: retimed(flushThenRecv, 1, trace.Recv, 0.45), src: flushThenRecv,
			prop: lrr, status: fail, witness: "P0's flush at t=0.5 leaves its receipt of m1 at seq 1 off stable storage",
			also: map[string]report.Status{report.Equivalence: report.Fail}},
	})
}
