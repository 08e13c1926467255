package history

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/trace"
)

// maxOpGap is how far past the ops a process has run an op number may
// jump and still be judged as a gap in its live history (broken
// continuity), not as out of range: a few ops left out by a foreign
// recorder, but no table grown by a forged number.
const maxOpGap = 64

// op adds an executed app op (send, recv, internal; not a resend) to its
// process's live history, checking op continuity, and links it to its
// program-order predecessor and, for a receive, to the send of its copy.
func (b *Builder) op(seq int32, e *trace.RunEvent, ps *procBuild) {
	m := b.m
	if e.Op == None {
		// No live history without op numbers, but the copy is still
		// sent or taken.
		m.Missing.Ops = true
		b.copyOf(seq, e)
		return
	}
	b.sawOp = true
	b.opAfterEnv(seq, e)
	if e.Op < 0 || e.Op > max(b.sizeHint, seq) || e.Op > int32(len(ps.progKind))+maxOpGap {
		// No process can have more ops than the run has events. Nor can
		// it run an op before every earlier one (progKind reaches one
		// past the highest op run so far): a run that skips a few is
		// judged for broken continuity below, a jump beyond maxOpGap is
		// malformed, since the tables grow to the op claimed (2,000
		// events claiming op 1,999 at 2,000 processes cost 160 MB).
		b.malformed(OpOutOfRange, seq, func() string { return fmt.Sprintf("event %d: op %d out of range", seq, e.Op) })
		return
	}
	if ps.posless && e.Op < int32(len(ps.live)) {
		// A foreign restart or rollback without pos: its undo shows only
		// here, and is no broken continuity.
		b.undo(ps, e.Op, ps.lastRestore, requeueUnsure)
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
			b.undo(ps, e.Op, ImplicitUndo, requeueUnsure)
		}
		for int32(len(ps.live)) < e.Op {
			ps.live = append(ps.live, None)
			ps.stable = append(ps.stable, false)
			ps.gaps++
		}
	}
	if len(ps.live) > 0 {
		m.Pred[seq] = ps.live[len(ps.live)-1]
	}
	if ps.down {
		ps.downOps = append(ps.downOps, seq)
	}
	ps.live = append(ps.live, seq)
	ps.stable = append(ps.stable, false)
	if e.Kind == trace.Recv {
		ps.unstable++
	}
	b.learnOp(seq, e, ps)
	b.copyOf(seq, e)
}

// copyOf registers the copy a send transmits, or has a receive take its
// copy.
func (b *Builder) copyOf(seq int32, e *trace.RunEvent) {
	switch e.Kind {
	case trace.Send:
		if ci := b.transmit(seq, e); ci >= 0 {
			b.m.Copies.Orig[ci] = seq
		} else {
			b.m.Missing.Copy = true
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
	b.fromSender(seq, e, ci)
	if e.Via != trace.ViaLog {
		b.take(seq, e, ci)
	}
}

// fromSender checks a receive's from against the process that
// transmitted its copy: the field names who sent it (witnesses, exports
// and diagrams show it), and a copy has one sender. A receive without
// from is not judged for it.
func (b *Builder) fromSender(seq int32, e *trace.RunEvent, ci int32) {
	m := b.m
	sent := m.Copies.Send[ci]
	if e.Peer == None || sent == None || m.Run.Events[sent].P == e.Peer {
		return
	}
	from := m.Run.Events[sent].P
	b.anomaly(WrongSender, seq, func() (string, string) {
		return fmt.Sprintf("%s receives copy %d of %s at seq %d from %s, but %s sent it", m.ProcName(e.P), e.Copy, m.MsgName(e.Msg), seq, m.ProcName(e.Peer), m.ProcName(from)),
			fmt.Sprintf("copy %d of %s was transmitted by %s at seq %d, so a receive of it names %s as its sender, but the receive at seq %d says from %s",
				e.Copy, m.MsgName(e.Msg), m.ProcName(from), sent, m.ProcName(from), seq, m.ProcName(e.Peer))
	})
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
		if e.Op == None {
			m.Missing.Ops = true // which send it repeats cannot be told
			m.Copies.Orig[ci] = orig
			m.SendOf[seq] = orig
			return
		}
		b.anomaly(ResendNotLive, seq, func() (string, string) {
			return fmt.Sprintf("%s resends %s at seq %d but its send is not live", m.ProcName(e.P), m.MsgName(e.Msg), seq),
				fmt.Sprintf("a resend repeats a send of the live history, but at seq %d op %d of %s is not a live send of %s", seq, e.Op, m.ProcName(e.P), m.MsgName(e.Msg))
		})
	}
	m.Copies.Orig[ci] = orig
	m.SendOf[seq] = orig
	b.resendOf(seq, e, ci, orig)
}

// resendOf checks a resend's of field, when present, against the copy
// the run shows it repeats: an earlier transmission of the live send it
// repeats (SPEC §6: "of (the copy it repeats)"). The engine names the
// live send's own copy; an earlier resend of the same send carries the
// same message and piggyback, so it is accepted too.
func (b *Builder) resendOf(seq int32, e *trace.RunEvent, ci, orig int32) {
	m := b.m
	if e.Of <= 0 || orig == None {
		return
	}
	oi := m.Copies.Index(e.Msg, e.Of)
	if e.Of < e.Copy && oi >= 0 && m.Copies.Orig[oi] == orig {
		return
	}
	b.anomalyPair(ResendOf, orig, seq, func() (string, string) {
		why := fmt.Sprintf("copy %d is another send's", e.Of)
		switch {
		case e.Of == e.Copy:
			why = fmt.Sprintf("copy %d is the resend's own", e.Of)
		case oi < 0 || e.Of > e.Copy || m.Copies.Send[oi] == None:
			why = fmt.Sprintf("no copy %d of %s was sent before it", e.Of, m.MsgName(e.Msg))
		}
		return fmt.Sprintf("%s's resend of %s at seq %d says it repeats copy %d of %s, but the send it repeats transmitted copy %d",
				m.ProcName(e.P), m.MsgName(e.Msg), seq, e.Of, m.MsgName(e.Msg), m.Run.Events[orig].Copy),
			wellFormedBecause(fmt.Sprintf("a resend's of names the copy it repeats, a transmission of the live send it repeats — %s, which transmitted copy %d — but the resend at seq %d says of %d, and %s",
				m.Describe(orig), m.Run.Events[orig].Copy, seq, e.Of, why))
	})
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
				fmt.Sprintf("a piecewise-deterministic program re-executes the same op at the same index, but op %d of %s was %s earlier and is %s%s at seq %d",
					k, m.ProcName(e.P), was, e.Kind, m.MsgOpt(e.Msg), seq)
		})
	}
}

// logged records that a log event made a live receipt stable. A PK log
// event writes a volatile entry to stable storage at a flush (SPEC §6),
// so it must name a live receipt that is not stable yet; an MS one comes
// before the receipt it logs.
func (b *Builder) logged(seq int32, e *trace.RunEvent, ps *procBuild) {
	k := e.Op
	if k >= 0 && int(k) < len(ps.live) && ps.live[k] != None && !ps.stable[k] {
		if r := &b.m.Run.Events[ps.live[k]]; r.Kind == trace.Recv && r.Msg == e.Msg && r.Copy == e.Copy {
			ps.stable[k] = true
			ps.unstable--
			b.logBacked(seq, e, ps.live[k])
			return
		}
	}
	if b.m.Alg != PK {
		return
	}
	m := b.m
	b.anomaly(LogUnmatched, seq, func() (string, string) {
		return fmt.Sprintf("%s logs copy %d of %s for op %d at seq %d, which is no volatile receipt", m.ProcName(e.P), e.Copy, m.MsgName(e.Msg), k, seq),
			fmt.Sprintf("a PK log event makes an entry of the volatile message log stable, so it names a live receipt not yet stable, but op %d of %s is no such receipt of copy %d of %s at seq %d",
				k, m.ProcName(e.P), e.Copy, m.MsgName(e.Msg), seq)
	})
}
