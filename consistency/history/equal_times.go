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

// srcOpIndex returns the source trace index of the send or receive r,
// or None (an internal op, which no message names, or a message the
// source trace lacks).
func (b *Builder) srcOpIndex(r *trace.RunEvent) int32 {
	sm := b.srcMsgOf(r.Msg)
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

// srcMsgOf maps a run message index to the source trace's: the identity
// for a run fresh from replay (it shares the trace's table), else by id,
// the map built the first time it is needed.
func (b *Builder) srcMsgOf(rm int32) int32 {
	w := &b.wf
	run, src := b.m.Run.Msgs, w.src.Msgs
	if rm < 0 || int(rm) >= len(run) {
		return None
	}
	if len(run) == len(src) && len(run) > 0 && &run[0] == &src[0] {
		return rm
	}
	if w.srcOf == nil {
		index := make(map[string]int32, len(src))
		for i, id := range src {
			index[id] = int32(i)
		}
		w.srcOf = make([]int32, len(run))
		for i, id := range run {
			w.srcOf[i] = None
			if j, ok := index[id]; ok {
				w.srcOf[i] = j
			}
		}
	}
	return w.srcOf[rm]
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
