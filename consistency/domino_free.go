package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// dominoFree judges SPEC §7 domino-free: for each failure the failed
// process restores its latest (MS) or latest non-orphan (PK) checkpoint;
// each other process rolls back at most once for it, and no further than
// the algorithm's bound — MS: the earliest checkpoint numbered ≥ r among
// those it held; PK: just before its first orphan event. A restore of a
// checkpoint the process does not hold fails it too.
func dominoFree(m *history.Model) result {
	r := newResult(report.DominoFree)
	if m.Missing.Failure {
		r.cannotJudge(failureWhy)
	}
	r.failWith(m, history.UnheldRestore)
	switch {
	case m.Alg.IsMS():
		msDomino(m, &r)
	case m.Alg == history.PK:
		pkDomino(m, &r)
	case m.Alg.Places():
		placementRecovery(m, &r)
	default:
		r.cannotJudge(foreignWhy(m))
	}
	return r
}

// msDomino checks MS restarts and rollbacks.
func msDomino(m *history.Model, r *result) {
	if m.Missing.MSReplay() {
		r.cannotJudge(msFieldsWhy)
		return
	}
	rolled := map[[2]int32]int32{} // (p, failure) → first rollback
	for i := range m.Restores {
		rs := &m.Restores[i]
		e := m.Event(rs.Seq)
		fi := m.FailOf(rs.Seq)
		ck, ok := m.RestoredCkpt(rs)
		if !ok || fi == history.None {
			continue
		}
		if e.Kind == trace.Restart {
			if latest := m.Procs[e.P].Taken[rs.Latest]; latest.ID != ck.ID {
				r.fail([]int32{rs.Seq}, func() (string, string) {
					return fmt.Sprintf("%s restarts from checkpoint %d, not its latest checkpoint %d", m.ProcName(e.P), ck.ID, latest.ID),
						fmt.Sprintf("MS restores the failed process's latest checkpoint, which for %s at %s was checkpoint %d (sn %d, pos %d), but the restart at seq %d restored checkpoint %d (sn %d, pos %d)",
							m.ProcName(e.P), m.FailName(fi), latest.ID, latest.Sn, latest.Pos, rs.Seq, ck.ID, ck.Sn, ck.Pos)
				})
			}
			continue
		}
		rolledTwice(m, rolled, rs.Seq, fi, "each process applies a recovery once", r)
		if f := &m.Failures[fi]; f.Count != history.None && m.Alg == history.MS {
			msBound(m, rs, f, ck, r)
		}
	}
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
// further than the earliest checkpoint numbered ≥ r among those it held.
func msBound(m *history.Model, rs *history.Restore, f *history.Failure, ck history.Ckpt, r *result) {
	e := m.Event(rs.Seq)
	bound := m.EarliestHeld(e.P, rs, f.R)
	rec := func() string { return fmt.Sprintf("(%s, %d, r=%d)", m.ProcName(f.P), f.Count, f.R) }
	if bound == nil {
		r.fail([]int32{rs.Seq}, func() (string, string) {
			return fmt.Sprintf("%s rolls back for failure seq %d though it holds no checkpoint numbered ≥ %d", m.ProcName(e.P), f.Seq, f.R),
				fmt.Sprintf("applying recovery %s at a process whose checkpoints are all numbered below %d takes a recovery checkpoint, but %s rolled back to checkpoint %d at seq %d",
					rec(), f.R, m.ProcName(e.P), ck.ID, rs.Seq)
		})
		return
	}
	if ck.Pos < bound.Pos {
		r.fail([]int32{rs.Seq}, func() (string, string) {
			return fmt.Sprintf("%s rolls back past checkpoint %d for failure seq %d", m.ProcName(e.P), bound.ID, f.Seq),
				fmt.Sprintf("for recovery %s MS restores the earliest checkpoint numbered ≥ %d, checkpoint %d (sn %d, pos %d), but %s restored checkpoint %d (sn %d, pos %d) at seq %d",
					rec(), f.R, bound.ID, bound.Sn, bound.Pos, m.ProcName(e.P), ck.ID, ck.Sn, ck.Pos, rs.Seq)
		})
	}
}

// pkDomino checks PK's rollback bound (shared with minimal-rollback),
// rollbacks per failure and what each restart restores.
func pkDomino(m *history.Model, r *result) {
	if d := m.Dependence(); d != nil {
		for _, o := range overRollbacks(m, d) {
			r.fail(o.seqs(), func() (string, string) {
				return fmt.Sprintf("%s rolled back past its first orphan event at seq %d", m.ProcName(m.Event(o.by).P), o.by), o.because(m)
			})
		}
	}
	if m.Missing.Replay() {
		r.cannotJudge(pkFieldsWhy)
		return
	}
	rolled := map[[2]int32]int32{}
	for i := range m.Restores {
		rs := &m.Restores[i]
		e := m.Event(rs.Seq)
		fi := m.FailOf(rs.Seq)
		if e.Kind == trace.Rollback {
			if fi != history.None {
				rolledTwice(m, rolled, rs.Seq, fi, "a process handles each token once", r)
			}
			continue
		}
		if why := pkRestartUnknown(m, rs); why != "" {
			r.cannotJudge(why)
			continue
		}
		if fi == history.None {
			continue
		}
		if want := pkRestoreTarget(m, rs); want.ID != e.Restore {
			r.fail([]int32{rs.Seq}, func() (string, string) {
				return fmt.Sprintf("%s restarts from checkpoint %d, not its latest non-orphan checkpoint %d", m.ProcName(e.P), e.Restore, want.ID),
					fmt.Sprintf("PK restores the latest checkpoint that is not an orphan of the announcements recorded by then; for %s at %s that is checkpoint %d (pos %d), but the restart at seq %d restored checkpoint %d",
						m.ProcName(e.P), m.FailName(fi), want.ID, want.Pos, rs.Seq, e.Restore)
			})
		}
	}
}

// pkRestoreTarget returns the checkpoint a PK restart must restore: the
// latest it held that is not an orphan of the announcements it had
// recorded (the initial one at worst).
func pkRestoreTarget(m *history.Model, rs *history.Restore) history.Ckpt {
	var want history.Ckpt
	p := m.Event(rs.Seq).P
	m.Held(p, rs, func(c *history.Ckpt) bool {
		want = *c
		o, _ := m.KnownOrphan(p, rs, m.CkptVT(c))
		return o
	})
	return want
}

// pkRestartUnknown says why a PK restart cannot be judged, or "".
func pkRestartUnknown(m *history.Model, rs *history.Restore) string {
	switch {
	case m.FirstVTMissing != history.None && m.FirstVTMissing < rs.Seq:
		return "checkpoints carry no vector time, so orphan checkpoints cannot be told"
	case rs.BodyMissing:
		return "a token carries no body, so the announcements a restarted process had recorded are unknown"
	}
	return ""
}

// Reasons the MS and PK rules cannot be judged.
const (
	msFieldsWhy = "the run lacks op, copy, sn or restore fields the MS rules are judged from"
	pkFieldsWhy = "the run lacks op, copy or restore fields the PK rules are judged from"
)
