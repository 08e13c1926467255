package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// ckptTypeRules judges a checkpoint's type against what the algorithm
// takes (issue 14: a forced checkpoint relabelled `recovery` is no
// recovery): PK takes checkpoints only at its timer ticks (SPEC §5), so
// every one is basic; an MS recovery checkpoint applies the recovery of
// a failure that has restarted (SPEC §4.2), which its `failure` names —
// one that names none while no failure has restarted applies nothing.
// With a failure restarted and none named, which recovery it applies
// cannot be told: log-replay-rules is unknown, as for an unattributed
// rollback.
func ckptTypeRules(m *history.Model, r *result) {
	firstRestart := history.None
	for i := range m.Failures {
		if s := m.Failures[i].Restart; s != history.None && (firstRestart == history.None || s < firstRestart) {
			firstRestart = s
		}
	}
	for i := range m.Run.Events {
		e := &m.Run.Events[i]
		if e.Kind != trace.Checkpoint || e.CkptType == trace.CkptInitial || e.CkptType == trace.CkptNone {
			continue
		}
		seq := int32(i)
		switch {
		case m.Alg == history.PK && e.CkptType != trace.CkptBasic:
			r.fail(fmt.Sprintf("%s's %s checkpoint %d at seq %d is no PK checkpoint", m.ProcName(e.P), e.CkptType, e.Ckpt, seq), []int32{seq},
				fmt.Sprintf("PK checkpoints only at its timer ticks, so every checkpoint it takes is basic, but the one at seq %d says %s", seq, e.CkptType))
		case m.Alg.IsMS() && e.CkptType == trace.CkptRecovery && e.Failure == history.None:
			if firstRestart != history.None && firstRestart < seq {
				r.cannotJudge(fmt.Sprintf("the recovery checkpoint at seq %d names no failure, so which recovery it applies cannot be told", seq))
				continue
			}
			r.fail(fmt.Sprintf("%s's recovery checkpoint %d at seq %d applies no failure", m.ProcName(e.P), e.Ckpt, seq), []int32{seq},
				fmt.Sprintf("a recovery checkpoint applies the recovery of a failure that has restarted, but the one at seq %d names no failure and no failure has restarted before it%s",
					seq, firstRestartWhen(firstRestart)))
		}
	}
}

// firstRestartWhen says when the first restart came, if ever.
func firstRestartWhen(s int32) string {
	if s == history.None {
		return " (the run has none)"
	}
	return fmt.Sprintf(" (the first restart is at seq %d)", s)
}
