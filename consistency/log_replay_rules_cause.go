package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// causeControl is the control message a rollback cause answers, and
// whether the algorithm rolls back for that cause at all.
func causeControl(alg history.Alg, c trace.Cause) (trace.Control, bool) {
	switch {
	case c == trace.CauseRequest && alg.IsMS():
		return trace.ControlRollback, true
	case c == trace.CauseToken && alg == history.PK:
		return trace.ControlToken, true
	case c == trace.CauseMessage && alg == history.Textbook:
		// A message whose piggyback names a later recovery: no control
		// message precedes it (the seed's rule, docs/ms.md).
		return trace.ControlNone, true
	}
	return trace.ControlNone, false
}

// causeRules judges each rollback's cause (SPEC §6): one its algorithm
// rolls back for (MS applies Rollback requests, its textbook variant
// also the recoveries a message's piggyback names; PK answers tokens),
// and for a request or a token, one the process has received for the
// failure the rollback names. Diagrams, recoveries and witnesses show
// the cause, so a forged one misleads whoever reads them.
func causeRules(m *history.Model, r *result) {
	var got map[[2]int32]uint32 // (process, failure) -> control kinds received
	for i := range m.Run.Events {
		e := &m.Run.Events[i]
		switch {
		case e.Kind == trace.ControlRecv && e.Failure != history.None:
			if got == nil {
				got = make(map[[2]int32]uint32)
			}
			got[[2]int32{e.P, e.Failure}] |= 1 << e.Control
		case e.Kind == trace.Rollback && e.Cause != trace.CauseNone:
			ctl, ok := causeControl(m.Alg, e.Cause)
			switch {
			case !ok:
				r.fail(fmt.Sprintf("%s's rollback at seq %d says cause %s, for which %s never rolls back", m.ProcName(e.P), e.Seq, e.Cause, algName(m)),
					[]int32{e.Seq}, fmt.Sprintf("%s rolls back %s only", algName(m), causesOf(m.Alg)))
			case ctl != trace.ControlNone && e.Failure != history.None && got[[2]int32{e.P, e.Failure}]&(1<<ctl) == 0:
				r.fail(fmt.Sprintf("%s's rollback at seq %d says cause %s, but %s received no %s control message for failure seq %d before it", m.ProcName(e.P), e.Seq, e.Cause, m.ProcName(e.P), ctl, e.Failure),
					[]int32{e.Failure, e.Seq}, fmt.Sprintf("a rollback caused by a %s answers one that reached its process (a control_recv for the failure it names), and %s has none for failure seq %d before seq %d", e.Cause, m.ProcName(e.P), e.Failure, e.Seq))
			}
		}
	}
}

// causesOf says for which causes alg rolls back.
func causesOf(alg history.Alg) string {
	switch alg {
	case history.MS:
		return "on a Rollback request (cause request)"
	case history.Textbook:
		return "on a Rollback request (cause request) or a message naming a later recovery (cause message)"
	case history.PK:
		return "on a token (cause token)"
	}
	return "never"
}
