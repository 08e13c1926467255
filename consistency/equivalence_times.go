package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// replayTimes judges the ops' times of SPEC §3 (readyTimes) in a run
// that records the params it was replayed with (replayTimed); the run
// spec judges the network's and the down times under the same condition.
// A foreign algorithm's run keeps its own network's timing. A run of one
// of ckpt's algorithms claims §3's; without its params the times cannot
// be judged, and SPEC §6 makes the property unknown, never pass
// (docs/checker.md, "Runs without params").
func replayTimes(m *history.Model, r *result) {
	switch {
	case replayTimed(m.Run):
		readyTimes(m, r)
	case m.Run.Options.Timing == trace.TimingRecorded:
		// Judged on its program and on causal order only: the run's
		// form (time order, each receipt after its send, each restart
		// after its fail, ops in program order) is checked above.
	case m.Alg != history.Foreign:
		r.cannotJudge(noParamsWhy)
	}
}

// noParamsWhy says why equivalence is unknown for a run of one of
// ckpt's algorithms that records no params.
const noParamsWhy = "the run records no params (restart_delay, control_delay, default_delay), so the times SPEC §3 gives its ops, copies, control messages and restarts cannot be judged"

// readyTimes checks that every op executes at its ready time (SPEC §3):
// op k is ready gap_k (its trace time less its predecessor's) after the
// previous op executed, or after the restore, if later; a send or an
// internal op executes when ready, a receive then or later; an op PK
// replays at a restore, at its time. A held process executes nothing:
// after a block the wait already done is kept (exec moves by the block's
// length), after another hold the next op is ready a gap after the
// resume; either way not before the resume (docs/replay.md).
func readyTimes(m *history.Model, r *result) {
	np := len(m.Procs)
	opAt := m.SrcOps()
	st := make([]readyState, np)
	for p := range st {
		st[p].pausedAt = -1
	}
	for i := range m.Run.Events {
		e := &m.Run.Events[i]
		if e.P < 0 || int(e.P) >= np {
			continue
		}
		s := &st[e.P]
		switch e.Kind {
		case trace.Restart, trace.Rollback:
			s.exec, s.floor, s.pausedAt = e.T, e.T, -1
		case trace.Block:
			s.pausedAt = e.T
		case trace.Resume:
			if s.pausedAt >= 0 {
				s.exec += e.T - s.pausedAt
				s.pausedAt = -1
			} else {
				s.exec = max(s.exec, e.T)
			}
			s.floor = e.T
		case trace.Send, trace.Internal, trace.Recv:
			if e.Resend {
				continue
			}
			ops := opAt[e.P]
			if e.Op >= 0 && int(e.Op) < len(ops) {
				gap := m.Src.Events[ops[e.Op]].T
				if e.Op > 0 {
					gap -= m.Src.Events[ops[e.Op-1]].T
				}
				ready := max(s.exec+gap, s.floor)
				if (e.T < ready || (e.Kind != trace.Recv && e.T != ready)) && !replayedAtRestore(m, int32(i), e) {
					notReady(m, int32(i), e, ready, r)
				}
			}
			s.exec, s.floor = e.T, e.T
		}
	}
}

// readyState is what readyTimes keeps per process: when its last op
// executed (moved by the blocks since), the earliest time its next op
// may run (its last resume or restore), and when its current block
// began (-1: none).
type readyState struct {
	exec, floor, pausedAt trace.Time
}

// replayedAtRestore reports whether op event seq is part of PK's instant
// replay: the run writes the ops a restart re-executes from its log
// before the restart, at its time, so a restore of the same process at
// the same instant follows whose pos is beyond the op.
func replayedAtRestore(m *history.Model, seq int32, e *trace.RunEvent) bool {
	for j := seq + 1; int(j) < len(m.Run.Events); j++ {
		n := m.Event(j)
		if n.T != e.T {
			return false
		}
		if n.P == e.P && (n.Kind == trace.Restart || n.Kind == trace.Rollback) {
			return n.Pos > e.Op
		}
	}
	return false
}

// notReady reports an op that did not execute at its ready time.
func notReady(m *history.Model, seq int32, e *trace.RunEvent, ready trace.Time, r *result) {
	when := "at"
	if e.Kind == trace.Recv {
		when = "at or after"
	}
	r.fail([]int32{seq}, func() (string, string) {
		return fmt.Sprintf("%s's %s (op %d) at seq %d executes at t=%s, not %s its ready time t=%s", m.ProcName(e.P), e.Kind, e.Op, seq, e.T, when, ready),
			fmt.Sprintf("op %d of %s is ready its trace gap after the previous op executed (or after the restore or resume, if later), which rebuilt from the run is t=%s, and a %s executes %s it",
				e.Op, m.ProcName(e.P), ready, e.Kind, when)
	})
}
