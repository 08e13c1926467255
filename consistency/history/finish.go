package history

import (
	"cmp"
	"slices"

	"github.com/ckpt-dev/ckpt/trace"
)

// Finish freezes the model: it completes the handling points, and
// derives the final-state facts (processes' final state, programs, live
// sends and receives, the final checkpoint and message graph). The
// builder must not be used afterwards.
func (b *Builder) Finish() *Model {
	m := b.m
	b.flushesBefore(trace.MaxTime + 1)
	b.finishWellFormed()
	if m.Missing.Ops && !b.sawOp {
		// A run without op numbers has no live counts: what was
		// compared with them says nothing. (A run with some is judged
		// on them: leaving one out must not hide the rest.)
		for _, k := range []Kind{BrokenContinuity, CkptPos, PosBeyondLive, UndoneCount, OpWhileDown} {
			m.anomalies[k] = anomalyList{}
		}
	}
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
		ps := &b.procs[p]
		m.Procs[p] = Proc{Live: ps.live, Held: ps.held, byID: ps.byID, Taken: ps.taken, End: ps.end, Restarts: ps.restarts}
	}
	m.srcMsg = b.srcMsgs()
	// The source's tables and happened-before are built beside the final
	// state (the costliest step, a random walk over the live events):
	// neither reads what the other writes (10^7 events: a second less).
	done := make(chan struct{})
	go func() {
		defer close(done)
		m.Program = b.program(m.srcMsg != nil || m.sameMsgs)
		if b.wf.src != nil {
			m.srcOps = b.srcOpTable() // program built it when it read the source
		}
		if len(m.Failures) > 0 && !m.Missing.Ops && !m.Missing.Copy {
			m.dep = m.dependence()
		}
	}()
	m.finalState()
	<-done
	// What only building needed goes now, not when the caller drops the
	// builder: with many failures its maps are tens of megabytes.
	*b = Builder{}
	return m
}

// srcMsgs maps the source trace's message indexes to the run's: the
// identity for a run fresh from replay (it shares the trace's table),
// else by id; nil without a comparable source.
func (b *Builder) srcMsgs() []int32 {
	m := b.m
	if m.Src == nil || len(m.Src.Processes) != len(m.Run.Processes) {
		return nil
	}
	r, s := m.Run.Msgs, m.Src.Msgs
	if len(r) == len(s) && (len(r) == 0 || &r[0] == &s[0]) {
		m.sameMsgs = true
		return nil
	}
	return msgMap(s, r)
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

// program returns every process's program: from the source trace when
// there is one (through its op table, srcOpTable), else as the run shows
// it (SPEC §7). From the source, all processes share one backing array.
func (b *Builder) program(hasSrc bool) [][]ProgOp {
	m := b.m
	np := len(b.procs)
	out := make([][]ProgOp, np)
	if !hasSrc {
		for p := range out {
			ps := &b.procs[p]
			ops := make([]ProgOp, len(ps.progKind))
			for k := range ops {
				ops[k] = ProgOp{Kind: ps.progKind[k], Msg: ps.progMsg[k]}
			}
			out[p] = ops
		}
		return out
	}
	// The source's op table (equal_times.go) already places every op.
	ops := b.srcOpTable()
	total := 0
	for _, idx := range ops {
		total += len(idx)
	}
	all := make([]ProgOp, total)
	for p, idx := range ops {
		out[p], all = all[:len(idx):len(idx)], all[len(idx):]
		for k, i := range idx {
			te := &m.Src.Events[i]
			out[p][k] = ProgOp{Kind: te.Kind, Msg: m.runMsg(te.Msg)}
		}
	}
	return out
}

// runMsg maps a source trace message index to the run's, or None.
func (m *Model) runMsg(i int32) int32 {
	switch {
	case m.sameMsgs && i >= 0 && int(i) < len(m.Run.Msgs):
		return i
	case i >= 0 && int(i) < len(m.srcMsg):
		return m.srcMsg[i]
	}
	return None
}

// SrcSender returns the process that sends message m in the source
// trace, or None.
func (m *Model) SrcSender(msg int32) int32 {
	if msg < 0 || int(msg) >= len(m.srcSender) {
		return None
	}
	return m.srcSender[msg]
}

// srcSenders maps each run message to its sender in the source trace.
func (m *Model) srcSenders() {
	if m.srcMsg == nil && !m.sameMsgs {
		return
	}
	nm := len(m.Run.Msgs)
	m.srcSender = make([]int32, nm)
	for i := range m.srcSender {
		m.srcSender[i] = None
	}
	for sm, msg := range m.Src.Messages {
		rm := m.runMsg(int32(sm))
		if rm != None && int(rm) < nm && msg.Send >= 0 && int(msg.Send) < len(m.Src.Events) {
			m.srcSender[rm] = m.Src.Events[msg.Send].P
		}
	}
}
