package history

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/trace"
)

// Order at equal times (SPEC §3): after restarts and arrivals, the
// trace-indexed items of an instant — environment events and ready ops —
// happen in the order of their index in the trace file. Within one
// process that order decides what a tick's checkpoint holds, what a
// flush makes stable and which ops run before a fail. Found by an
// adversarial review: a run that put a receipt before the flush (or
// tick) the trace lists first at the same instant, and logged it there,
// changed no time and kept a receipt the crash loses.

// srcOpIndex returns the source trace index of the op r, or None (a
// message the source trace lacks, an op number beyond its program).
// Sends and receives are found by their message; internal ops by their
// op number, through a table of every process's ops built the first
// time one is needed (4 bytes an op).
func (b *Builder) srcOpIndex(r *trace.RunEvent) int32 {
	if r.Kind == trace.Internal {
		return b.srcInternal(r)
	}
	sm := b.m.msgs.src(r.Msg)
	if sm == None {
		return None
	}
	msg := &b.wf.src.Messages[sm]
	switch r.Kind {
	case trace.Send:
		return msg.Send
	case trace.Recv:
		return msg.Recv
	}
	return None
}

// srcInternal returns the source trace index of internal op r.
func (b *Builder) srcInternal(r *trace.RunEvent) int32 {
	w := &b.wf
	ops := b.srcOpTable()[r.P]
	if r.Op < 0 || int(r.Op) >= len(ops) || w.src.Events[ops[r.Op]].Kind != trace.Internal {
		return None
	}
	return ops[r.Op]
}

// srcOpTable returns, per process, the source trace indexes of its ops
// in program order, all in one backing array, built the first time it
// is needed (the model keeps it: Model.SrcOps).
func (b *Builder) srcOpTable() [][]int32 {
	w := &b.wf
	if w.progIdx == nil {
		np := len(b.procs)
		w.progIdx = bucket(w.src, np, func(te *trace.Event) int {
			if te.Kind.IsOp() && te.P >= 0 && int(te.P) < np {
				return int(te.P)
			}
			return -1
		})
	}
	return w.progIdx
}

// envPassed records the tick or fail e, trace index idx, that the run
// has shown for its process.
func (b *Builder) envPassed(e *trace.RunEvent, idx int32) {
	w := &b.wf
	if w.envAt == nil {
		w.envAt, w.envIdx = make([]trace.Time, len(b.procs)), make([]int32, len(b.procs))
		for p := range w.envAt {
			w.envAt[p] = -1
		}
	}
	w.envAt[e.P], w.envIdx[e.P] = e.T, idx
}

// opAfterEnv checks op e against the tick or fail of its process the run
// showed before it at the same instant: the trace must list that one
// first too. (The converse of afterOpsBefore.)
func (b *Builder) opAfterEnv(seq int32, e *trace.RunEvent) {
	w := &b.wf
	if w.envAt == nil || e.P < 0 || int(e.P) >= len(b.procs) || w.envAt[e.P] != e.T || (e.Kind == trace.Send && e.Resend) {
		return
	}
	idx := w.envIdx[e.P]
	if oi := b.srcOpIndex(e); oi != None && oi < idx {
		m := b.m
		b.anomaly(EqualTimeOrder, seq, func() (string, string) {
			return fmt.Sprintf("%s's %s (op %d) at seq %d comes after a tick or fail of its instant t=%s that the trace lists after it", m.ProcName(e.P), e.Kind, e.Op, seq, e.T),
				fmt.Sprintf("at equal times the trace-indexed items happen in trace order (SPEC §3): the trace lists the %s (event %d) before the tick or fail (event %d), so the %s comes first", e.Kind, oi, idx, e.Kind)
		})
	}
}

// afterOpsBefore checks the tick or fail at seq, trace index idx,
// against the ops its process ran at the same instant before it in the
// run: each must come before it in the trace too. (Ops a restore of
// this instant re-executed are the restore's, which comes first.)
func (b *Builder) afterOpsBefore(seq int32, e *trace.RunEvent, idx int32) {
	ps := &b.procs[e.P]
	if len(ps.live) == 0 || (ps.lastRestore != None && b.m.Run.Events[ps.lastRestore].T == e.T) {
		return
	}
	s := ps.live[len(ps.live)-1]
	if s == None {
		return
	}
	r := &b.m.Run.Events[s]
	if r.T != e.T {
		return
	}
	if ri := b.srcOpIndex(r); ri != None && ri > idx {
		m := b.m
		b.anomaly(EqualTimeOrder, seq, func() (string, string) {
			return fmt.Sprintf("%s's %s at seq %d comes after its %s of %s at seq %d, at the same instant t=%s, which the trace lists after it", m.ProcName(e.P), e.Kind, seq, r.Kind, m.MsgName(r.Msg), s, e.T),
				fmt.Sprintf("at equal times the trace-indexed items happen in trace order (SPEC §3): the trace lists the %s (event %d) before the %s (event %d), so the %s comes first", e.Kind, idx, r.Kind, ri, e.Kind)
		})
	}
}
