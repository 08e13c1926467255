package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// The run spec's end records, judged against the history the checker
// rebuilt (SPEC §3): a process ends `down` iff it failed and has not
// restarted; else `done` iff it ran its whole program (judged by
// equivalence's programAt, and without the source trace by
// no-lost-messages); else it is stuck at its live count — `held` iff
// something holds it (a held receive, a block, a PK restart whose token
// has not returned), `blocked` otherwise — and `msg` is the message of
// the receive its program has there. A record that says otherwise
// contradicts the run's own events: the run is not well formed.

// holds follows what holds each process: a receive's hold until its
// unhold, restore or failure; a block until its resume; a PK restart
// until its resume.
func (s *runSpec) holds(seq int32, e *trace.RunEvent) {
	ps := &s.procs[e.P]
	switch e.Kind {
	case trace.Fail:
		if _, ok := s.m.FailureAt(seq); ok {
			ps.recvHold, ps.procHold = history.None, history.None
		}
	case trace.Restart:
		ps.restart, ps.recvHold = seq, history.None
		if s.m.Alg == history.PK {
			ps.procHold = seq
		}
	case trace.Rollback, trace.Unhold:
		ps.recvHold = history.None
	case trace.Hold:
		ps.recvHold = seq
	case trace.Block:
		ps.procHold = seq
	case trace.Resume:
		ps.procHold = history.None
	}
}

// endRecords judges every process's end record, once the run is over.
func (s *runSpec) endRecords() {
	for p := range s.procs {
		if end := s.b.Ended(int32(p)); end != history.None {
			s.endRecord(int32(p), end)
		}
	}
}

// endRecord judges process p's end record at seq end.
func (s *runSpec) endRecord(p, end int32) {
	m, ps := s.m, &s.procs[p]
	e := m.Event(end)
	fail := func(because string) {
		s.fail(equivalenceAt, []int32{end}, func() (string, string) {
			return fmt.Sprintf("%s's end at seq %d says %s", m.ProcName(p), end, endSays(m, e)), notWellFormed(because)
		})
	}
	down := s.b.Down(p)
	switch {
	case down && e.State != trace.StateDown:
		fail(fmt.Sprintf("%s failed at seq %d and never restarted, so it ended down", m.ProcName(p), s.b.LastFail(p)))
		return
	case !down && e.State == trace.StateDown:
		why := "it never failed"
		if f := s.b.LastFail(p); f != history.None {
			why = fmt.Sprintf("its failure at seq %d ended with its restart at seq %d", f, ps.restart)
		}
		fail(fmt.Sprintf("%s is up at the end: %s", m.ProcName(p), why))
		return
	}
	if m.Missing.Ops || e.State == trace.StateDone {
		// No live count to compare the record with; a process done short
		// of its program is programAt's (and, without the source trace,
		// no-lost-messages') to report.
		return
	}
	live := s.liveCount(p)
	if e.Op != history.None && e.Op != live {
		fail(fmt.Sprintf("its final live history has %d ops, so it is stuck at op %d, not op %d", live, live, e.Op))
		return
	}
	if why := s.stuckAt(e, live); why != "" {
		fail(why)
		return
	}
	if m.Alg.Recovers() || m.Alg.Places() {
		s.heldOrBlocked(e, ps, fail)
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
func (s *runSpec) stuckAt(e *trace.RunEvent, live int32) string {
	m := s.m
	if int(live) >= s.b.ProgLen(e.P) {
		if s.env.src != nil && e.State != trace.StateDown {
			return fmt.Sprintf("%s has run its whole program (%d ops), so it is done, not %s", m.ProcName(e.P), s.b.ProgLen(e.P), e.State)
		}
		return ""
	}
	op, ok := s.b.ProgOp(e.P, live)
	if !ok {
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
func (s *runSpec) heldOrBlocked(e *trace.RunEvent, ps *runProc, fail func(string)) {
	m := s.m
	by := ps.recvHold
	if by == history.None {
		by = ps.procHold
	}
	switch {
	case e.State == trace.StateHeld && by == history.None:
		back := "no restart waits for its token"
		if m.Alg == history.PK && ps.restart != history.None {
			back = fmt.Sprintf("its restart at seq %d was followed by its resume", ps.restart)
		}
		fail(fmt.Sprintf("nothing holds %s at the end: every hold has its unhold, every block its resume, and %s", m.ProcName(e.P), back))
	case e.State == trace.StateBlocked && by != history.None:
		fail(fmt.Sprintf("the %s at seq %d still holds %s at the end (no %s after it), so it ended held", m.Event(by).Kind, by, m.ProcName(e.P), releaseOf(m.Event(by).Kind)))
	}
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
