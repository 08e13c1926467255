package consistency

import (
	"slices"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// MS's recoveries reach everyone (SPEC §4.2; log_replay_rules_ms_requests.go).
// Found by an adversarial review: a run that left one Rollback request
// out, with what it caused at its receiver, passed every rule although
// that receiver later delivered a message of the recovery it never
// applied.

// recoveryThenMessage: P0 fails and restarts, which sends Rollback
// requests to P1 and P2; P0 then sends m to P1, which carries the
// recovery.
func recoveryThenMessage(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1", "P2").
		Checkpoint(0.5, "P0").Internal(0.6, "P0").Fail(1, "P0").
		Send(3, "P0", "P1", "m").Recv(3.5, "P1", "m").Internal(4, "P2"))
}

// withoutRequestTo returns the MS replay of tr without the Rollback
// request to process q (its send and receipt) and without what q did
// for that failure.
func withoutRequestTo(q int32) func(t *testing.T) *trace.Run {
	return func(t *testing.T) *trace.Run {
		run := replayOf(t, "ms", recoveryThenMessage(t))
		var drop []int32
		for i := range run.Events {
			e := &run.Events[i]
			switch {
			case e.Kind == trace.ControlSend && e.Peer == q,
				e.Kind == trace.ControlRecv && e.P == q,
				e.P == q && e.Failure != trace.None && (e.Kind == trace.Rollback || e.Kind == trace.Checkpoint):
				drop = append(drop, int32(i))
			}
		}
		if len(drop) < 2 {
			t.Fatalf("the replay sends no request to process %d", q)
		}
		return removeAt(run, drop)
	}
}

// removeAt returns run without the events at seqs (ascending), every
// later seq and every failure field following the events it names.
func removeAt(run *trace.Run, seqs []int32) *trace.Run {
	shift := func(s int32) int32 {
		n, _ := slices.BinarySearch(seqs, s)
		return s - int32(n)
	}
	out := run.Events[:0]
	for i, e := range run.Events {
		if _, gone := slices.BinarySearch(seqs, int32(i)); gone {
			continue
		}
		e.Seq = int32(len(out))
		if e.Failure != trace.None {
			e.Failure = shift(e.Failure)
		}
		out = append(out, e)
	}
	run.Events = out
	return run
}

func TestMSRecoveriesReachEveryone(t *testing.T) {
	lrr := report.LogReplayRules
	checkRuleCases(t, []ruleCase{
		{name: "replayed", run: func(t *testing.T) *trace.Run { return replayOf(t, "ms", recoveryThenMessage(t)) },
			src: recoveryThenMessage, prop: lrr, status: report.Pass},
		// P2 receives nothing afterwards: only the missing request shows.
		{name: "request-to-P2-left-out", run: withoutRequestTo(2), src: recoveryThenMessage, prop: lrr, status: report.Fail,
			witness: "P0's restart at seq 3 sends its Rollback request to 1 of the 2 other processes"},
		// P1 then delivers m, a message of the recovery it never applied:
		// the spec reports the first divergence, the missing request.
		{name: "request-to-P1-left-out", run: withoutRequestTo(1), src: recoveryThenMessage, prop: lrr, status: report.Fail,
			witness: "P0's restart at seq 3 sends its Rollback request to 1 of the 2 other processes",
			also:    map[string]report.Status{report.SnLines: report.Fail}},
	})
}
