package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// replayTimes judges two times of SPEC §3 that the run and its source
// trace fix, with the params the run was replayed with: a copy sent at
// s arrives at s + d, d its message's delay in the trace (default_delay
// when the trace never receives it), so a receipt from the network is no
// earlier; and a process that fails at t restarts at t + its down time
// (the fail's own, else restart_delay). Found by an adversarial review:
// a receipt moved before its arrival, and so before a flush, made a PK
// log legitimate and kept orphans; an early restart passed too. Only a
// run that records the params it was replayed with claims §3's timing
// (history.RecordsParams; control messages: history.ControlLate).
func replayTimes(m *history.Model, r *result) {
	params := m.Run.Options.Params
	if !history.RecordsParams(m.Run) {
		return
	}
	arrivals(m, srcDelays(m, params.DefaultDelay), r)
	restartTimes(m, params.RestartDelay, r)
	readyTimes(m, r)
}

// srcDelays returns, per run message, its delay in the source trace, or
// -1 when unknown.
func srcDelays(m *history.Model, def trace.Time) []trace.Time {
	d := make([]trace.Time, len(m.Run.Msgs))
	for i := range d {
		d[i] = -1
	}
	ev := m.Src.Events
	for sm, msg := range m.Src.Messages {
		rm := m.RunMsg(int32(sm))
		if rm == history.None || int(rm) >= len(d) || msg.Send < 0 || int(msg.Send) >= len(ev) {
			continue
		}
		switch {
		case msg.Recv >= 0 && int(msg.Recv) < len(ev):
			d[rm] = ev[msg.Recv].T - ev[msg.Send].T
		default:
			d[rm] = def
		}
	}
	return d
}

// arrivals checks that every receipt from the network comes no earlier
// than its copy's arrival.
func arrivals(m *history.Model, delay []trace.Time, r *result) {
	for i := range m.Run.Events {
		e := &m.Run.Events[i]
		if e.Kind != trace.Recv || e.Via == trace.ViaLog || e.Msg < 0 || int(e.Msg) >= len(delay) || delay[e.Msg] < 0 {
			continue
		}
		ci := m.Copies.Index(e.Msg, e.Copy)
		if ci < 0 || m.Copies.Send[ci] == history.None {
			continue
		}
		snd := m.Copies.Send[ci]
		at := m.Event(snd).T + delay[e.Msg]
		if e.T >= at {
			continue
		}
		r.fail([]int32{snd, int32(i)}, func() (string, string) {
			return fmt.Sprintf("%s receives %s at seq %d, t=%s, before it arrives at t=%s", m.ProcName(e.P), m.MsgName(e.Msg), i, e.T, at),
				fmt.Sprintf("copy %d of %s was sent at seq %d, t=%s, and a copy arrives its message's delay %s later (the source trace's), so no receive takes it before t=%s",
					e.Copy, m.MsgName(e.Msg), snd, m.Event(snd).T, delay[e.Msg], at)
		})
	}
}

// restartTimes checks that every restart comes its fail's down time
// after the fail. A run's fail events are its source trace's, per
// process in order (history.EnvironmentMismatch judges that).
func restartTimes(m *history.Model, restartDelay trace.Time, r *result) {
	np := len(m.Procs)
	srcFails := make([][]*trace.Event, np)
	for i := range m.Src.Events {
		if te := &m.Src.Events[i]; te.Kind == trace.Fail && te.P >= 0 && int(te.P) < np {
			srcFails[te.P] = append(srcFails[te.P], te)
		}
	}
	nth := map[int32]int{} // run fail seq → its ordinal among its process's fails
	count := make([]int, np)
	for i := range m.Run.Events {
		e := &m.Run.Events[i]
		if e.P < 0 || int(e.P) >= np {
			continue
		}
		switch e.Kind {
		case trace.Fail:
			nth[int32(i)] = count[e.P]
			count[e.P]++
		case trace.Restart:
			k, ok := nth[e.Failure]
			if !ok || k >= len(srcFails[e.P]) {
				continue
			}
			down := srcFails[e.P][k].Down
			if down == 0 {
				down = restartDelay
			}
			if at := m.Event(e.Failure).T + down; e.T != at {
				r.fail([]int32{e.Failure, int32(i)}, func() (string, string) {
					return fmt.Sprintf("%s restarts at seq %d, t=%s, not at t=%s", m.ProcName(e.P), i, e.T, at),
						fmt.Sprintf("%s failed at seq %d, t=%s, and a process is down for its fail's down time (its own, else restart_delay), %s, so it restarts at t=%s",
							m.ProcName(e.P), e.Failure, m.Event(e.Failure).T, down, at)
				})
			}
		}
	}
}

// readyTimes checks that every op executes at its ready time (SPEC §3):
// op k is ready gap_k (its trace time less its predecessor's) after the
// previous op executed, or after the restore, if later; a send or an
// internal op executes when ready, a receive then or later, when a copy
// is there and accepted; an op PK replays at a restore, at its time. A held process executes nothing: after a block
// the wait it had already done is kept (exec moves by the block's
// length), after another hold (PK's until its token returns) the next
// op is ready a gap after the resume; either way not before the resume
// (docs/replay.md). Found by the second review round: a send moved
// earlier let its receipt come before a flush and the rollback undo less
// than it must; any op moved in a failure-free run passed.
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
