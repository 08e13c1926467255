package replay

import (
	"cmp"
	"slices"

	"github.com/ckpt-dev/ckpt/trace"
)

// finish records every process's end and the copies left in mailboxes.
func (e *engine) finish() {
	for p := range e.procs {
		pr := &e.procs[p]
		r := e.emit(trace.End, int32(p))
		switch {
		case pr.down:
			r.State = trace.StateDown
		case int(pr.pos()) >= len(pr.prog):
			r.State = trace.StateDone
		case pr.heldProc || pr.heldRecv:
			r.State = trace.StateHeld
		default:
			r.State = trace.StateBlocked
		}
		if r.State != trace.StateDone && int(pr.pos()) < len(pr.prog) {
			r.Op = pr.pos()
			if tev := &e.tr.Events[pr.prog[pr.pos()]]; tev.Kind == trace.Recv {
				r.Msg = tev.Msg
			}
		}
	}
	var left []CopyID
	for c := 1; c < len(e.copies); c++ {
		if e.copies[c].state == copyBox {
			left = append(left, CopyID(c))
		}
	}
	slices.SortFunc(left, func(a, b CopyID) int {
		ca, cb := &e.copies[a], &e.copies[b]
		return cmp.Or(cmp.Compare(ca.to, cb.to), cmp.Compare(ca.arrSeq, cb.arrSeq))
	})
	for _, c := range left {
		cr := &e.copies[c]
		r := e.emit(trace.Unconsumed, cr.to)
		r.Msg, r.Copy = cr.msg, cr.no
	}
}
