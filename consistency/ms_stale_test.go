package consistency

import (
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// msStaleLogTrace: P1 logs m2 (sn 1, below its checkpoint number 2),
// then P0 crashes and restarts from its checkpoint 1 (line r = 1), which
// undoes the send of m2: P1's log entry is stale. P1 rolls back to its
// checkpoint 1 (seq 11), before the receipt, and its replay must skip
// the entry: MS takes the re-sent copy 2 from the network (seq 13).
func msStaleLogTrace(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1").
		Checkpoint(1, "P0").Checkpoint(1, "P1").Checkpoint(2, "P1").
		Send(2.2, "P0", "P1", "m2").Recv(2.5, "P1", "m2").Internal(2.8, "P1").Fail(3, "P0"))
}

// msStaleLogRun is its MS run, checked to be the one described.
func msStaleLogRun(t *testing.T) *trace.Run {
	run := replayOf(t, "ms", msStaleLogTrace(t))
	want := map[int32]trace.Kind{4: trace.Log, 7: trace.Fail, 11: trace.Rollback, 13: trace.Recv}
	for seq, k := range want {
		if run.Events[seq].Kind != k {
			t.Fatalf("seq %d is a %s, not a %s", seq, run.Events[seq].Kind, k)
		}
	}
	return run
}

// msReplaysStale: the receive at seq 13 takes the stale entry from the
// log (copy 1) instead; the re-sent copy is left unconsumed.
func msReplaysStale(t *testing.T) *trace.Run {
	run := forge(t, msStaleLogRun(t), 13, trace.Recv, func(e *trace.RunEvent) { e.Via, e.Copy = trace.ViaLog, 1 })
	u := trace.NewRunEvent(trace.Unconsumed, run.Events[len(run.Events)-1].T, 1)
	u.Msg, u.Copy = msgID(run, "m2"), 2
	run.Events = append(run.Events, u)
	return renumber(run)
}

// msOffersStale: right after the rollback the replay log offers the
// stale entry and P1 discards it (inserted at seq 12), as if MS had kept
// it for the replay.
func msOffersStale(t *testing.T) *trace.Run {
	run := msStaleLogRun(t)
	d := trace.NewRunEvent(trace.Discard, run.Events[11].T, 1)
	d.Msg, d.Copy, d.Reason, d.Failure = msgID(run, "m2"), 1, trace.ReasonStale, 7
	return insertAt(run, 12, d)
}

// msLateStaleTrace: m2's copy 1 reaches P1 only after P1 applied the
// recovery of P0's crash (line r = 1) that undid its send: MS discards
// it as stale (run seq 10) and delivers the re-sent copy 2 (seq 11).
func msLateStaleTrace(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1").
		Checkpoint(1, "P0").Checkpoint(1, "P1").Checkpoint(2, "P1").
		Send(2.2, "P0", "P1", "m2").Fail(3, "P0").Recv(6, "P1", "m2").Internal(6.5, "P1"))
}

// msLogsStale is the MS run of msLateStaleTrace with the stale copy
// logged and delivered instead of discarded; the re-sent copy is left
// unconsumed.
func msLogsStale(t *testing.T) *trace.Run {
	run := replayOf(t, "ms", msLateStaleTrace(t))
	forge(t, run, 10, trace.Discard, func(e *trace.RunEvent) {
		e.Kind, e.Op, e.Reason, e.Failure = trace.Log, 0, trace.ReasonNone, trace.None
	})
	forge(t, run, 11, trace.Recv, func(e *trace.RunEvent) { e.Copy = 1 })
	u := trace.NewRunEvent(trace.Unconsumed, run.Events[len(run.Events)-1].T, 1)
	u.Msg, u.Copy = msgID(run, "m2"), 2
	run.Events = append(run.Events, u)
	return renumber(run)
}

// TestMSStaleLogEntry: MS's replay rule replays only log entries still
// valid for the recoveries applied (log_replay_rules_ms.go, replay and
// discard); replaying a stale one, or having it offered at all, fails
// log-replay-rules; so does logging a stale copy (log). The entry is stale because its send was undone, so
// delivering it also delivers an orphan of a failure P1 has handled.
func TestMSStaleLogEntry(t *testing.T) {
	lrr := report.LogReplayRules
	checkRuleCases(t, []ruleCase{
		{name: "clean", run: msStaleLogRun, src: msStaleLogTrace, prop: lrr, status: pass},
		{name: "replays-stale", run: msReplaysStale, src: msStaleLogTrace, prop: lrr, status: fail,
			witness: "P1 replays stale m2 at seq 13",
			besides: []string{"P1 delivers orphan m2 at seq 13 after handling failure seq 7"},
			also:    map[string]report.Status{report.OrphanFree: fail}},
		{name: "logs-stale", run: msLogsStale, src: msLateStaleTrace, prop: lrr, status: fail,
			witness: "P1 logged copy 1 of m2 (sent at seq 3) at seq 10, but it is stale",
			besides: []string{"P1 delivers orphan m2 at seq 11 after handling failure seq 4"},
			also:    map[string]report.Status{report.OrphanFree: fail}},
		{name: "offers-stale", run: msOffersStale, src: msStaleLogTrace, prop: lrr, status: fail,
			witness: "P1's replay offers the stale logged m2 at seq 12"},
	})
}
