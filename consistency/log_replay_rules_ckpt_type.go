package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// ckptTypeRules judges a checkpoint's type against what the algorithm
// takes (issue 14: a forced checkpoint relabelled `recovery` is no
// recovery): PK takes checkpoints only at its timer ticks (SPEC §5), so
// every one is basic; an MS recovery checkpoint applies the recovery
// (o, c, r) of a failure that has restarted, numbered r, at a process
// that had not applied it (SPEC §4.2). Its `failure` names it (judged by
// msNumber and the model); one that names none must have such a
// recovery to apply, else it fails. Whether one it may apply is the one
// cannot be told: log-replay-rules is then unknown, as for an
// unattributed rollback.
func ckptTypeRules(m *history.Model, r *result) {
	budget := unattributedBudget
	for i := range m.Run.Events {
		e := &m.Run.Events[i]
		if e.Kind != trace.Checkpoint || e.CkptType == trace.CkptInitial || e.CkptType == trace.CkptNone {
			continue
		}
		seq := int32(i)
		switch {
		case m.Alg == history.PK && e.CkptType != trace.CkptBasic:
			r.fail([]int32{seq}, func() (string, string) {
				return fmt.Sprintf("%s's %s checkpoint %d at seq %d is no PK checkpoint", m.ProcName(e.P), e.CkptType, e.Ckpt, seq),
					fmt.Sprintf("PK checkpoints only at its timer ticks, so every checkpoint it takes is basic, but the one at seq %d says %s", seq, e.CkptType)
			})
		case m.Alg.IsMS() && e.CkptType == trace.CkptRecovery && e.Failure == history.None:
			switch pendingRecovery(m, seq, e, &budget) {
			case history.None:
				r.fail([]int32{seq}, func() (string, string) {
					return fmt.Sprintf("%s's recovery checkpoint %d at seq %d applies no failure", m.ProcName(e.P), e.Ckpt, seq),
						fmt.Sprintf("a recovery checkpoint applies the recovery (o, c, r) of a failure that has restarted, numbered r, at a process that had not applied it; the one at seq %d names no failure, and no failure restarted before it has a recovery numbered %d that %s had not applied",
							seq, e.Sn, m.ProcName(e.P))
				})
			default:
				r.cannotJudge(fmt.Sprintf("the recovery checkpoint at seq %d names no failure, so which recovery it applies cannot be told", seq))
			}
		}
	}
}

// unattributedBudget bounds the failures × handlers looked at for
// recovery checkpoints that name no failure (a correct run has none):
// past it, any such checkpoint is taken to have a recovery to apply
// (unknown), so the check stays linear in the run.
const unattributedBudget = 1 << 20

// pendingRecovery returns the seq of a failure restarted before seq
// whose recovery is numbered e.Sn and not yet applied by e's process —
// one the recovery checkpoint e may apply — or None if there is none.
func pendingRecovery(m *history.Model, seq int32, e *trace.RunEvent, budget *int) int32 {
	for fi := range m.Failures {
		f := &m.Failures[fi]
		if f.Seq >= seq || *budget <= 0 {
			if *budget <= 0 {
				return seq // out of budget: assume one
			}
			break
		}
		*budget -= 1 + len(f.Handlers)
		if f.Restart == history.None || f.Restart > seq || f.R != e.Sn {
			continue
		}
		applied := false
		for _, h := range f.Handlers {
			applied = applied || (h < seq && m.Event(h).P == e.P)
		}
		if !applied {
			return f.Seq
		}
	}
	return history.None
}
