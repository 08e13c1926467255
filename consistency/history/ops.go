package history

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/trace"
)

// op adds an executed app op (send, recv, internal; not a resend) to its
// process's live history, checking op continuity, and links it to its
// program-order predecessor and, for a receive, to the send of its copy.
func (b *Builder) op(seq int32, e *trace.RunEvent, ps *procBuild) {
	m := b.m
	if e.Op == None {
		m.Missing.Ops = true
		return
	}
	if e.Op < 0 || e.Op > max(b.sizeHint, seq) {
		// No process can have more ops than the run has events.
		b.malformed(OpOutOfRange, seq, fmt.Sprintf("event %d: op %d out of range", seq, e.Op))
		return
	}
	if ps.posless && e.Op < int32(len(ps.live)) {
		// A foreign restart or rollback without pos: its undo shows only
		// here, and is no broken continuity.
		b.undo(ps, e.Op, ps.lastRestore, requeueAll)
	}
	ps.posless = false
	if e.Op != int32(len(ps.live)) {
		live := len(ps.live)
		b.anomaly(BrokenContinuity, seq, func() (string, string) {
			return fmt.Sprintf("broken op continuity at seq %d", seq),
				fmt.Sprintf("%s had %d live ops before seq %d, so its next op should be op %d, but the run says op %d",
					m.ProcName(e.P), live, seq, live, e.Op)
		})
		if e.Op < int32(len(ps.live)) {
			b.undo(ps, e.Op, ImplicitUndo, requeueAll)
		}
		for int32(len(ps.live)) < e.Op {
			ps.live = append(ps.live, None)
		}
	}
	if len(ps.live) > 0 {
		m.Pred[seq] = ps.live[len(ps.live)-1]
	}
	ps.live = append(ps.live, seq)
	b.learnOp(seq, e, ps)
	switch e.Kind {
	case trace.Send:
		if ci := b.transmit(seq, e); ci >= 0 {
			m.Copies.Orig[ci] = seq
		} else {
			m.Missing.Copy = true
		}
	case trace.Recv:
		b.recv(seq, e)
	}
}

// recv links a receive to the send of the copy it consumed and, for a
// receive from the network, takes the copy from the mailbox.
func (b *Builder) recv(seq int32, e *trace.RunEvent) {
	m := b.m
	ci := m.Copies.Index(e.Msg, e.Copy)
	if ci < 0 || m.Copies.Orig[ci] == None {
		if e.Copy <= 0 {
			m.Missing.Copy = true
			return
		}
		b.anomaly(CopyNeverSent, seq, func() (string, string) {
			return fmt.Sprintf("%s received copy %d of %s that was never sent", m.ProcName(e.P), e.Copy, m.MsgName(e.Msg)),
				fmt.Sprintf("the run shows no send of copy %d of %s before seq %d", e.Copy, m.MsgName(e.Msg), seq)
		})
		return
	}
	m.SendOf[seq] = m.Copies.Orig[ci]
	if e.Via != trace.ViaLog {
		b.take(seq, e, ci)
	}
}

// resend links a re-transmission to the live send it repeats.
func (b *Builder) resend(seq int32, e *trace.RunEvent, ps *procBuild) {
	m := b.m
	ci := b.transmit(seq, e)
	if ci < 0 {
		m.Missing.Copy = true
		return
	}
	orig := None
	if e.Op >= 0 && int(e.Op) < len(ps.live) {
		if s := ps.live[e.Op]; s != None && m.Run.Events[s].Kind == trace.Send && m.Run.Events[s].Msg == e.Msg {
			orig = s
		}
	}
	if orig == None {
		// A resend of a send that is not live repeats a message the
		// sender's state no longer holds: link it to the copy it repeats.
		if oi := m.Copies.Index(e.Msg, e.Of); oi >= 0 {
			orig = m.Copies.Orig[oi]
		}
		b.anomaly(ResendNotLive, seq, func() (string, string) {
			return fmt.Sprintf("%s resends %s at seq %d but its send is not live", m.ProcName(e.P), m.MsgName(e.Msg), seq),
				fmt.Sprintf("a resend repeats a send of the live history, but at seq %d op %d of %s is not a live send of %s", seq, e.Op, m.ProcName(e.P), m.MsgName(e.Msg))
		})
	}
	m.Copies.Orig[ci] = orig
	m.SendOf[seq] = orig
}

// learnOp adds an executed op to the inferred program of its process, and
// notes when two executions disagree on what op k is.
func (b *Builder) learnOp(seq int32, e *trace.RunEvent, ps *procBuild) {
	k := int(e.Op)
	for len(ps.progKind) <= k {
		ps.progKind = append(ps.progKind, trace.KindInvalid)
		ps.progMsg = append(ps.progMsg, None)
	}
	if ps.progKind[k] == trace.KindInvalid {
		ps.progKind[k] = e.Kind
		ps.progMsg[k] = e.Msg
		return
	}
	if ps.progKind[k] != e.Kind || (e.Kind != trace.Internal && ps.progMsg[k] != e.Msg) {
		m := b.m
		was := ps.progKind[k]
		b.anomaly(ProgramMismatch, seq, func() (string, string) {
			return fmt.Sprintf("%s op %d differs between executions", m.ProcName(e.P), k),
				fmt.Sprintf("a piecewise-deterministic program re-executes the same op at the same index, but op %d of %s was %s earlier and is %s %s at seq %d",
					k, m.ProcName(e.P), was, e.Kind, m.MsgOpt(e.Msg), seq)
		})
	}
}
