package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// dominoFree judges SPEC §7 domino-free: for each failure the failed
// process restores its latest (MS) or latest non-orphan (PK) checkpoint;
// each other process rolls back at most once for it, and no further than
// the algorithm's bound — MS: the earliest checkpoint numbered ≥ r among
// those it held; PK: just before its first orphan event. The checkpoints
// the rules name are the protocol spec's (history.Restore.Want), found
// as the run streamed. A restore of a checkpoint the process does not
// hold fails it too (the run spec).
func dominoFree(m *history.Model, r *result) {
	if m.Missing.Failure {
		r.cannotJudge(failureWhy)
	}
	if recoveryKnown(m, r) {
		restoreBounds(m, r)
	}
	if d := m.Dependence(); m.Alg == history.PK && d != nil {
		for _, o := range overRollbacks(m, d) {
			r.fail(o.seqs(), func() (string, string) {
				return fmt.Sprintf("%s rolled back past its first orphan event at seq %d", m.ProcName(m.Event(o.by).P), o.by), o.because(m)
			})
		}
	}
}

// restoreBounds judges each restart against the checkpoint the rule
// restores, each rollback against being the process's only one for its
// failure and (MS) against its bound.
func restoreBounds(m *history.Model, r *result) {
	if m.Missing.Replay() || m.Alg.IsMS() && m.Missing.Sn {
		r.cannotJudge("the run lacks op, copy, sn or restore fields the recovery rules are judged from")
		return
	}
	rolled := map[[2]int32]int32{} // (p, failure) → first rollback
	for i := range m.Restores {
		rs := &m.Restores[i]
		e, fi := m.Event(rs.Seq), m.FailOf(rs.Seq)
		ck, ok := m.RestoredCkpt(rs)
		switch {
		case fi == history.None || !ok:
		case rs.Want == history.None:
			r.cannotJudge(fmt.Sprintf("the protocol spec could not follow the run to the %s at seq %d (log-replay-rules says why), so its bound is unknown", e.Kind, rs.Seq))
		case e.Kind == trace.Restart:
			restartBound(m, rs, fi, ck, r)
		default:
			rolledTwice(m, rolled, rs.Seq, fi, map[bool]string{true: "a process handles each token once", false: "each process applies a recovery once"}[m.Alg == history.PK], r)
			if m.Alg.IsMS() {
				msBound(m, rs, &m.Failures[fi], ck, r)
			}
		}
	}
}

// restartBound checks that a restart restored the checkpoint the rule
// says: MS the latest, PK the latest that is no orphan of the
// announcements recorded by then.
func restartBound(m *history.Model, rs *history.Restore, fi int32, ck history.Ckpt, r *result) {
	e := m.Event(rs.Seq)
	want := m.Procs[e.P].Taken[rs.Want]
	if want.ID == ck.ID {
		return
	}
	rule := "MS restores the failed process's latest checkpoint, which"
	which := "its latest checkpoint"
	if m.Alg == history.PK {
		rule, which = "PK restores the latest checkpoint that is not an orphan of the announcements recorded by then;", "its latest non-orphan checkpoint"
	}
	r.fail([]int32{rs.Seq}, func() (string, string) {
		return fmt.Sprintf("%s restarts from checkpoint %d, not %s %d", m.ProcName(e.P), ck.ID, which, want.ID),
			fmt.Sprintf("%s for %s at %s was checkpoint %d (pos %d), but the restart at seq %d restored checkpoint %d (pos %d)",
				rule, m.ProcName(e.P), m.FailName(fi), want.ID, want.Pos, rs.Seq, ck.ID, ck.Pos)
	})
}

// rolledTwice records a rollback for failure fi and fails when its
// process rolled back for fi before.
func rolledTwice(m *history.Model, rolled map[[2]int32]int32, seq, fi int32, rule string, r *result) {
	p := m.Event(seq).P
	k := [2]int32{p, fi}
	first, twice := rolled[k]
	if !twice {
		rolled[k] = seq
		return
	}
	r.fail([]int32{first, seq}, func() (string, string) {
		return fmt.Sprintf("%s rolls back twice for failure seq %d", m.ProcName(p), m.Failures[fi].Seq),
			fmt.Sprintf("%s, so it rolls back at most once per failure, but %s rolled back for %s at seq %d and again at seq %d",
				rule, m.ProcName(p), m.FailName(fi), first, seq)
	})
}

// msBound checks SPEC §7's MS rollback bound: the process rolls back no
// further than the earliest checkpoint numbered ≥ r among those it held
// (the spec's Want; Nowhere when it held none).
func msBound(m *history.Model, rs *history.Restore, f *history.Failure, ck history.Ckpt, r *result) {
	e := m.Event(rs.Seq)
	rec := func() string { return fmt.Sprintf("(%s, %d, r=%d)", m.ProcName(f.P), f.Count, f.R) }
	if rs.Want == history.Nowhere {
		r.fail([]int32{rs.Seq}, func() (string, string) {
			return fmt.Sprintf("%s rolls back for failure seq %d though it holds no checkpoint numbered ≥ %d", m.ProcName(e.P), f.Seq, f.R),
				fmt.Sprintf("applying recovery %s at a process whose checkpoints are all numbered below %d takes a recovery checkpoint, but %s rolled back to checkpoint %d at seq %d",
					rec(), f.R, m.ProcName(e.P), ck.ID, rs.Seq)
		})
		return
	}
	if bound := m.Procs[e.P].Taken[rs.Want]; ck.Pos < bound.Pos {
		r.fail([]int32{rs.Seq}, func() (string, string) {
			return fmt.Sprintf("%s rolls back past checkpoint %d for failure seq %d", m.ProcName(e.P), bound.ID, f.Seq),
				fmt.Sprintf("for recovery %s MS restores the earliest checkpoint numbered ≥ %d, checkpoint %d (sn %d, pos %d), but %s restored checkpoint %d (sn %d, pos %d) at seq %d",
					rec(), f.R, bound.ID, bound.Sn, bound.Pos, m.ProcName(e.P), ck.ID, ck.Sn, ck.Pos, rs.Seq)
		})
	}
}
