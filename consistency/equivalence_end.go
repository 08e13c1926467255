package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// endRecords judges every process's end record against the history the
// checker rebuilt (issue 14: take nothing on trust). SPEC §3: a process
// ends `down` iff it failed and has not restarted; else `done` iff it
// ran its whole program (judged by programAt, and without the source
// trace by no-lost-messages); else it is stuck at its live count — `held`
// iff something holds it (a held receive, a block, a PK restart whose
// token has not returned), `blocked` otherwise — and `msg` is the
// message of the receive its program has there. A record that says
// otherwise contradicts the run's own events: the run is not well
// formed, and equivalence fails.
func endRecords(m *history.Model, r *result) {
	st := endStates(m)
	for p := range m.Procs {
		if end := m.Procs[p].End; end != history.None {
			judgeEnd(m, int32(p), end, &st[p], r)
		}
	}
}

// endState is what the run's events say of a process at its end.
type endState struct {
	down              bool
	lastFail, restart int32 // seqs of its latest effective fail and restart, or None
	// recvHold and procHold are the seqs of the hold (of a receive) and
	// of the block or PK restart (of the whole process) still holding
	// it, or None.
	recvHold, procHold int32
}

// endStates sweeps the run once for every process's endState.
func endStates(m *history.Model) []endState {
	st := make([]endState, len(m.Procs))
	for p := range st {
		st[p] = endState{lastFail: history.None, restart: history.None, recvHold: history.None, procHold: history.None}
	}
	for i := range m.Run.Events {
		e := &m.Run.Events[i]
		if e.P < 0 || int(e.P) >= len(st) {
			continue
		}
		s, seq := &st[e.P], int32(i)
		switch e.Kind {
		case trace.Fail:
			if !s.down { // a fail of a down process is ignored
				s.down, s.lastFail, s.recvHold, s.procHold = true, seq, history.None, history.None
			}
		case trace.Restart:
			s.down, s.restart, s.recvHold = false, seq, history.None
			if m.Alg == history.PK {
				s.procHold = seq // until its token returns (resume)
			}
		case trace.Rollback:
			s.recvHold = history.None // a restore undoes the held receive
		case trace.Hold:
			s.recvHold = seq
		case trace.Unhold:
			s.recvHold = history.None
		case trace.Block:
			s.procHold = seq
		case trace.Resume:
			s.procHold = history.None
		}
	}
	return st
}

// judgeEnd judges process p's end record at seq end.
func judgeEnd(m *history.Model, p, end int32, s *endState, r *result) {
	e := m.Event(end)
	fail := func(because string) {
		r.fail([]int32{end}, func() (string, string) {
			return fmt.Sprintf("%s's end at seq %d says %s", m.ProcName(p), end, endSays(m, e)), "the run is not well formed: " + because
		})
	}
	switch {
	case s.down && e.State != trace.StateDown:
		fail(fmt.Sprintf("%s failed at seq %d and never restarted, so it ended down", m.ProcName(p), s.lastFail))
		return
	case !s.down && e.State == trace.StateDown:
		why := "it never failed"
		if s.lastFail != history.None {
			why = fmt.Sprintf("its failure at seq %d ended with its restart at seq %d", s.lastFail, s.restart)
		}
		fail(fmt.Sprintf("%s is up at the end: %s", m.ProcName(p), why))
		return
	}
	if m.Missing.Ops {
		return // no live count to compare the record with
	}
	live := int32(len(m.Procs[p].Live))
	prog, known := m.Program[p], m.Src != nil && len(m.Src.Processes) == len(m.Run.Processes)
	if e.State == trace.StateDone {
		// A process done short of its program: with the source trace
		// programAt says so, without it no-lost-messages (the receives
		// it misses), as before.
		return
	}
	if e.Op != history.None && e.Op != live {
		fail(fmt.Sprintf("its final live history has %d ops, so it is stuck at op %d, not op %d", live, live, e.Op))
		return
	}
	if why := stuckAt(m, e, live, prog, known); why != "" {
		fail(why)
		return
	}
	if m.Alg.Recovers() || m.Alg.Places() {
		heldOrBlocked(m, e, s, fail)
	}
}

// endSays renders what an end record claims: "blocked at op 1 on m4".
func endSays(m *history.Model, e *trace.RunEvent) string {
	out := e.State.String()
	if e.Op != history.None {
		out += fmt.Sprintf(" at op %d", e.Op)
	}
	if e.Msg != history.None {
		out += " on " + m.MsgName(e.Msg)
	}
	return out
}

// stuckAt checks what a process that did not finish is stuck at against
// its program: the op at its live count (a receive, for a blocked one)
// and the message of that receive. Without the source trace an op the
// run never shows executing is unknown, and so is the program's length.
func stuckAt(m *history.Model, e *trace.RunEvent, live int32, prog []history.ProgOp, known bool) string {
	if int(live) >= len(prog) {
		if known && e.State != trace.StateDown {
			return fmt.Sprintf("%s has run its whole program (%d ops), so it is done, not %s", m.ProcName(e.P), len(prog), e.State)
		}
		return ""
	}
	op := prog[live]
	if op.Kind == trace.KindInvalid {
		return ""
	}
	want := history.None
	if op.Kind == trace.Recv {
		want = op.Msg
	}
	switch {
	case e.Msg != history.None && e.Msg != want:
		return fmt.Sprintf("op %d of %s's program, where it is stuck, is %s%s, not a receive of %s", live, m.ProcName(e.P), op.Kind, m.MsgOpt(op.Msg), m.MsgName(e.Msg))
	case e.State == trace.StateBlocked && op.Kind != trace.Recv:
		return fmt.Sprintf("op %d of %s's program, where it is stuck, is %s%s, which waits for no message", live, m.ProcName(e.P), op.Kind, m.MsgOpt(op.Msg))
	}
	return ""
}

// heldOrBlocked checks held against what holds the process, for the
// algorithms whose holds the run shows (hold, block, PK's restart).
func heldOrBlocked(m *history.Model, e *trace.RunEvent, s *endState, fail func(string)) {
	by := s.recvHold
	if by == history.None {
		by = s.procHold
	}
	switch {
	case e.State == trace.StateHeld && by == history.None:
		fail(fmt.Sprintf("nothing holds %s at the end: every hold has its unhold, every block its resume, and %s", m.ProcName(e.P), pkTokenBack(m, s)))
	case e.State == trace.StateBlocked && by != history.None:
		fail(fmt.Sprintf("the %s at seq %d still holds %s at the end (no %s after it), so it ended held", m.Event(by).Kind, by, m.ProcName(e.P), releaseOf(m.Event(by).Kind)))
	}
}

// pkTokenBack says why a PK restart holds no more.
func pkTokenBack(m *history.Model, s *endState) string {
	if m.Alg == history.PK && s.restart != history.None {
		return fmt.Sprintf("its restart at seq %d was followed by its resume", s.restart)
	}
	return "no restart waits for its token"
}

// releaseOf names the event that ends a hold of the given kind.
func releaseOf(k trace.Kind) string {
	switch k {
	case trace.Hold:
		return "unhold, restore or failure"
	case trace.Restart:
		return "resume (its token did not return)"
	}
	return "resume"
}
