package consistency

import (
	"testing"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// rolledBackTwice returns the run of build with the rollback at seq
// repeated right after it, undoing nothing more.
func rolledBackTwice(build func(t *testing.T) *trace.Run, seq int32) func(t *testing.T) *trace.Run {
	return func(t *testing.T) *trace.Run {
		run := build(t)
		again := run.Events[seq]
		if again.Kind != trace.Rollback {
			t.Fatalf("seq %d is a %s, not a rollback", seq, again.Kind)
		}
		again.Undone = 0
		return insertAt(run, seq+1, again)
	}
}

// pkOrphanRun is the PK run of the bundled orphan trace: P1 rolls back
// for P0's failure (seq 9) at seq 14.
func pkOrphanRun(t *testing.T) *trace.Run { return replayOf(t, "pk", bundled("orphan")(t)) }

// msRestartKeepsMore is the MS run of the bundled forced trace with
// P2's restart from checkpoint 2 (pos 0, seq 11) saying it keeps op 0,
// and its replay of op 0 from the log (seq 18) left out to match.
func msRestartKeepsMore(t *testing.T) *trace.Run {
	run := replayOf(t, "ms", bundled("forced")(t))
	forge(t, run, 11, trace.Restart, func(e *trace.RunEvent) { e.Pos, e.Undone = 1, 1 })
	forge(t, run, 18, trace.Recv, func(e *trace.RunEvent) {})
	return dropEvents(run, func(e *trace.RunEvent) bool { return e.Seq == 18 })
}

// msNeverResent is the MS run of staleTrace without P0's re-send of m1
// and P1's receipt of it (seqs 8, 9): P0 ends done, P1 blocked on m1,
// whose only send the restart undid.
func msNeverResent(t *testing.T) *trace.Run {
	run := replayOf(t, "ms", staleTrace(t))
	forge(t, run, 8, trace.Send, func(e *trace.RunEvent) {})
	forge(t, run, 9, trace.Recv, func(e *trace.RunEvent) {})
	run = dropEvents(run, func(e *trace.RunEvent) bool { return e.Seq == 8 || e.Seq == 9 })
	return forge(t, run, 9, trace.End, func(e *trace.RunEvent) {
		e.State, e.Op, e.Msg = trace.StateBlocked, 0, msgID(run, "m1")
	})
}

// msBlockedOnUnknown is msFailureRun with P1 ending blocked at op 2 on
// m9, which nothing sends.
func msBlockedOnUnknown(t *testing.T) *trace.Run {
	run := msFailureRun(msOpts{})
	run.Msgs = append(run.Msgs, "m9")
	return forge(t, run, 15, trace.End, func(e *trace.RunEvent) {
		e.State, e.Op, e.Msg = trace.StateBlocked, 2, int32(len(run.Msgs)-1)
	})
}

// TestRecoveryRules: rolledTwice (domino_free.go) for MS and PK,
// msRestorePos (log_replay_rules_restore.go) and blockedOnUnsent
// (no_lost_messages.go), each on a run that breaks it alone.
func TestRecoveryRules(t *testing.T) {
	checkRuleCases(t, []ruleCase{
		{name: "ms-rolled-twice", run: rolledBackTwice(msStaleLogRun, 11), src: msStaleLogTrace,
			prop: report.DominoFree, status: fail,
			witness: "each process applies a recovery once, so it rolls back at most once per failure, but P1 rolled back for failure seq 7 (P0 at t=3) at seq 11 and again at seq 12",
			// MS's spec diverges at the second rollback too: MS applies
			// a recovery once (TestSpecHoles/ms-rollback-applied-again).
			also: map[string]report.Status{report.LogReplayRules: fail}},
		{name: "pk-rolled-twice", run: rolledBackTwice(pkOrphanRun, 14), src: bundled("orphan"),
			prop: report.DominoFree, status: fail,
			witness: "a process handles each token once, so it rolls back at most once per failure, but P1 rolled back for failure seq 9 (P0 at t=3.5) at seq 14 and again at seq 15"},
		{name: "ms-restore-pos", run: msRestartKeepsMore, src: bundled("forced"),
			prop: report.LogReplayRules, status: fail,
			witness: "P2's restart at seq 11 restores checkpoint 2, taken at pos 0, but says pos 1",
			// the op after the kept one then runs at no ready time
			also: map[string]report.Status{report.Equivalence: fail}},
		{name: "blocked-on-unsent", run: msNeverResent,
			prop: report.NoLostMessages, status: fail,
			witness: "P1 is blocked on m1, which is never sent live"},
		{name: "blocked-on-unknown-sender", run: msBlockedOnUnknown,
			prop: report.NoLostMessages, status: unknown,
			witness: "P1 is blocked on m9, which the run never sends; without the source trace its sender is unknown"},
	})
}
