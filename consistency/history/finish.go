package history

import (
	"cmp"
	"slices"

	"github.com/ckpt-dev/ckpt/trace"
)

// Finish freezes the model: it completes the handling points, and
// derives the final-state facts (processes' final state, programs, live
// sends and receives, the final checkpoint and message graph). The
// builder must not be used afterwards. Each of beside runs on the model
// beside the final state, after the happened-before: it may read the
// processes' final live histories, the copies and the source, nothing
// the final state derives.
func (b *Builder) Finish(beside ...func(*Model)) *Model {
	m := b.m
	// A process that answered a failure only by receiving its control
	// message (nothing to roll back) handled it at that arrival. With
	// unattributed rollbacks, an arrival may be followed by the
	// (unnamed) rollback that handles it: only the explicitly
	// attributed handling points are judged then.
	if !m.Missing.Failure {
		for _, h := range b.candidates {
			if !b.failProcOf(h.F, h.P).handled {
				m.Handlings = append(m.Handlings, h)
			}
		}
	}
	slices.SortStableFunc(m.Handlings, func(a, b Handling) int {
		return cmp.Or(cmp.Compare(a.Seq, b.Seq), cmp.Compare(a.F, b.F))
	})
	m.Procs = make([]Proc, len(b.procs))
	for p := range b.procs {
		m.Procs[p] = b.procs[p].Proc
	}
	// The source's tables and happened-before are built beside the final
	// state (the costliest step, a random walk over the live events):
	// neither reads what the other writes (10^7 events: a second less).
	done := make(chan struct{})
	go func() {
		defer close(done)
		if len(m.Failures) > 0 && !m.Missing.Ops && !m.Missing.Copy {
			m.dep = m.dependence()
		}
		for _, f := range beside {
			f(m)
		}
	}()
	m.finalState()
	<-done
	// What only building needed goes now, not when the caller drops the
	// builder: with many failures its maps are tens of megabytes.
	*b = Builder{}
	m.Copies.box = nil
	return m
}

// msgMap maps each index of from to the index of the same message id in
// to, or None.
func msgMap(from, to []string) []int32 {
	index := make(map[string]int32, len(to))
	for i, id := range to {
		index[id] = int32(i)
	}
	out := make([]int32, len(from))
	for i, id := range from {
		out[i] = None
		if j, ok := index[id]; ok {
			out[i] = j
		}
	}
	return out
}

// mapMsg maps message index i by table to (Model.toSrc or toRun; nil:
// the identity); None for an index out of range or an id the other
// lacks.
func mapMsg(to []int32, i int32) int32 {
	switch {
	case i < 0:
		return None
	case to == nil:
		return i
	case int(i) < len(to):
		return to[i]
	}
	return None
}

// ProgOp returns op k of p's program: the source trace's when there is a
// comparable one, else the op the run has shown p executing there (SPEC
// §7); of kind KindInvalid beyond it or for an op the run never showed.
func (m *Model) ProgOp(p, k int32) ProgOp {
	if m.srcOps == nil {
		op, _ := m.shown(p, k)
		return op
	}
	if k < 0 || int(k) >= len(m.srcOps[p]) {
		return ProgOp{Kind: trace.KindInvalid, Msg: None}
	}
	te := &m.Src.Events[m.srcOps[p][k]]
	return ProgOp{Kind: te.Kind, Msg: mapMsg(m.toRun, te.Msg)}
}

// ProgLen returns the length of p's program: the source trace's when
// there is a comparable one, else the ops the run has shown.
func (m *Model) ProgLen(p int32) int {
	if m.srcOps == nil {
		return len(m.shownKind[p])
	}
	return len(m.srcOps[p])
}

// srcTables returns, per process, the source trace indexes of its ops
// (in program order), its timer ticks and its fails, in trace order, all
// in one backing array: one table of the source that the builder sizes
// its own by and the run spec follows the environment with. When from
// has them for src but the events inserted at index at (from is a
// clone's original, src its source with explore's next failure), they
// are shifted from from's: a clone at each of explore's failure points
// reads the inserted events only, not the whole source again.
func srcTables(src *trace.Trace, np int, from *Model, at int) (ops, ticks, fails [][]int32) {
	var old [][]int32 // from's tables, or none
	n := len(src.Events)
	if from != nil && from.srcOps != nil {
		old, n = slices.Concat(from.srcOps, from.srcTicks, from.srcFails), n-len(from.Src.Events)
	} else {
		at = 0
	}
	size := make([]int, 3*np+1)
	for x := at; x < at+n; x++ {
		if k := srcClass(&src.Events[x], np); k >= 0 {
			size[k+1]++
		}
	}
	for k := 1; k <= 3*np; k++ {
		size[k] += size[k-1]
		if old != nil {
			size[k] += len(old[k-1])
		}
	}
	all := make([]int32, size[3*np])
	out := make([][]int32, 3*np)
	split := make([]int, len(old)) // where from's indexes move by n
	for k := range out {
		out[k] = all[size[k]:size[k]:size[k+1]]
		if old != nil {
			split[k], _ = slices.BinarySearch(old[k], int32(at))
			out[k] = append(out[k], old[k][:split[k]]...)
		}
	}
	for x := at; x < at+n; x++ {
		if k := srcClass(&src.Events[x], np); k >= 0 {
			out[k] = append(out[k], int32(x))
		}
	}
	for k, t := range old {
		for _, x := range t[split[k]:] {
			out[k] = append(out[k], x+int32(n))
		}
	}
	return out[:np:np], out[np : 2*np : 2*np], out[2*np:]
}

// srcClass is the table of srcTables event e goes to, or -1.
func srcClass(e *trace.Event, np int) int {
	switch {
	case e.P < 0 || int(e.P) >= np:
		return -1
	case e.Kind.IsOp():
		return int(e.P)
	case e.Kind == trace.Checkpoint:
		return np + int(e.P)
	case e.Kind == trace.Fail:
		return 2*np + int(e.P)
	}
	return -1
}

// SrcEnv returns, per process, the source trace indexes of its timer
// ticks and of its fails, in trace order, or nil without a comparable
// source trace. The tables are the model's: read only.
func (m *Model) SrcEnv() (ticks, fails [][]int32) { return m.srcTicks, m.srcFails }

// srcMsg returns the source trace's entry of run message rm, or nil (no
// comparable source, or an id the source trace lacks).
func (m *Model) srcMsg(rm int32) *trace.Message {
	if m.Src == nil {
		return nil
	}
	if sm := mapMsg(m.toSrc, rm); sm != None && int(sm) < len(m.Src.Messages) {
		return &m.Src.Messages[sm]
	}
	return nil
}

// SrcIndex returns the source trace index of the op r, or None (no
// comparable source, a message the source trace lacks, an op number
// beyond its program). Sends and receives are found by their message,
// internal ops by their op number.
func (m *Model) SrcIndex(r *trace.RunEvent) int32 {
	if m.srcOps == nil {
		return None
	}
	if r.Kind == trace.Internal {
		ops := m.srcOps[r.P]
		if r.Op < 0 || int(r.Op) >= len(ops) || m.Src.Events[ops[r.Op]].Kind != trace.Internal {
			return None
		}
		return ops[r.Op]
	}
	switch msg := m.srcMsg(r.Msg); {
	case msg != nil && r.Kind == trace.Send:
		return msg.Send
	case msg != nil && r.Kind == trace.Recv:
		return msg.Recv
	}
	return None
}

// SrcDelay returns the source trace's delay of run message rm: its
// receive's time less its send's, or default_delay when the trace never
// receives it; false when the source lacks the message.
func (m *Model) SrcDelay(rm int32) (trace.Time, bool) {
	switch msg := m.srcMsg(rm); {
	case msg == nil:
		return 0, false
	case msg.Recv == None:
		return m.Run.Options.Params.DefaultDelay, true
	default:
		return m.Src.Events[msg.Recv].T - m.Src.Events[msg.Send].T, true
	}
}

// Sender returns the process that sends run message rm: the sender of
// its first copy the run transmits, else its sender in the source trace,
// else None.
func (m *Model) Sender(rm int32) int32 {
	if c := &m.Copies; rm >= 0 && int(rm) < len(c.first) {
		for cp := int32(1); cp <= c.count[rm]; cp++ {
			if s := c.Send[c.Index(rm, cp)]; s != None {
				return m.Run.Events[s].P
			}
		}
	}
	if msg := m.srcMsg(rm); msg != nil && msg.Send >= 0 && int(msg.Send) < len(m.Src.Events) {
		return m.Src.Events[msg.Send].P
	}
	return None
}
