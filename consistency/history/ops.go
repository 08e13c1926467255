package history

import "github.com/ckpt-dev/ckpt/trace"

// maxOpGap is how far past the ops a process has run an op number may
// jump and still be judged as a gap in its live history (broken
// continuity), not as out of range: a few ops left out by a foreign
// recorder, but no table grown by a forged number.
const maxOpGap = 64

// OpInRange reports whether the op number of app event e, the seq-th,
// is one its process can have reached: no process has more ops than the
// run has events, nor runs an op before every earlier one (shownKind
// reaches one past the highest op run so far). A run that skips a few is
// built with a gap; beyond maxOpGap the builder leaves the event out,
// since its tables grow to the op claimed (2,000 events claiming op
// 1,999 at 2,000 processes cost 160 MB).
func (b *Builder) OpInRange(seq int32, e *trace.RunEvent) bool {
	return e.Op >= 0 && e.Op <= max(b.sizeHint, seq) && e.Op <= int32(len(b.m.shownKind[e.P]))+maxOpGap
}

// op adds an executed app op (send, recv, internal; not a resend) to its
// process's live history, and links it to its program-order predecessor
// and, for a receive, to the send of its copy. An op whose number is not
// the live count undoes the ops above it, or leaves a gap below it.
func (b *Builder) op(seq int32, e *trace.RunEvent, ps *procBuild) {
	m := b.m
	if e.Op == None {
		// No live history without op numbers, but the copy is still
		// sent or taken.
		m.Missing.Ops = true
		b.copyOf(seq, e)
		return
	}
	if !b.OpInRange(seq, e) {
		return
	}
	if ps.posless && e.Op < int32(len(ps.Live)) {
		// A foreign restart or rollback without pos: its undo shows only
		// here, and is no broken continuity.
		b.undo(ps, e.Op, ps.lastRestore, requeueUnsure)
	}
	ps.posless = false
	if e.Op < int32(len(ps.Live)) {
		b.undo(ps, e.Op, ImplicitUndo, requeueUnsure)
	}
	for int32(len(ps.Live)) < e.Op {
		ps.Live = append(ps.Live, None)
		ps.stable = append(ps.stable, false)
		ps.gaps++
	}
	if len(ps.Live) > 0 {
		m.Pred[seq] = ps.Live[len(ps.Live)-1]
	}
	if int(ps.Agreed) == len(ps.Live) && m.isProgOp(e) {
		ps.Agreed++
	}
	ps.Live = append(ps.Live, seq)
	ps.stable = append(ps.stable, false)
	if e.Kind == trace.Recv {
		ps.unstable++
	}
	b.learnOp(e)
	b.copyOf(seq, e)
}

// copyOf registers the copy a send transmits, or has a receive take its
// copy.
func (b *Builder) copyOf(seq int32, e *trace.RunEvent) {
	m := b.m
	switch e.Kind {
	case trace.Send:
		if ci := b.transmit(seq, e); ci >= 0 {
			m.Copies.Orig[ci] = seq
		} else {
			m.Missing.Copy = true
		}
	case trace.Recv:
		ci := m.Copies.Index(e.Msg, e.Copy)
		if ci < 0 || m.Copies.Orig[ci] == None {
			m.Missing.Copy = m.Missing.Copy || e.Copy <= 0
			return
		}
		m.SendOf[seq] = m.Copies.Orig[ci]
		if e.Via != trace.ViaLog {
			b.take(seq, e, ci)
		}
	}
}

// ResendOf returns the live send a resend by p of message msg at op
// repeats, or None.
func (b *Builder) ResendOf(p, op, msg int32) int32 {
	if live := b.procs[p].Live; op >= 0 && int(op) < len(live) {
		if s := live[op]; s != None && b.m.Run.Events[s].Kind == trace.Send && b.m.Run.Events[s].Msg == msg {
			return s
		}
	}
	return None
}

// resend links a re-transmission to the live send it repeats.
func (b *Builder) resend(seq int32, e *trace.RunEvent, ps *procBuild) {
	m := b.m
	ci := b.transmit(seq, e)
	if ci < 0 {
		m.Missing.Copy = true
		return
	}
	orig := b.ResendOf(e.P, e.Op, e.Msg)
	if orig == None {
		// A resend of a send that is not live repeats a message the
		// sender's state no longer holds: link it to the copy it repeats.
		if oi := m.Copies.Index(e.Msg, e.Of); oi >= 0 {
			orig = m.Copies.Orig[oi]
		}
		m.Missing.Ops = m.Missing.Ops || e.Op == None // which send it repeats cannot be told
	}
	m.Copies.Orig[ci] = orig
	m.SendOf[seq] = orig
}

// learnOp adds an executed op to the inferred program of its process
// (the first execution of op k says what it is).
func (b *Builder) learnOp(e *trace.RunEvent) {
	k, kinds, msgs := int(e.Op), &b.m.shownKind[e.P], &b.m.shownMsg[e.P]
	for len(*kinds) <= k {
		*kinds = append(*kinds, trace.KindInvalid)
		*msgs = append(*msgs, None)
	}
	if (*kinds)[k] == trace.KindInvalid {
		(*kinds)[k], (*msgs)[k] = e.Kind, e.Msg
	} else if (*kinds)[k] != e.Kind || (*msgs)[k] != e.Msg {
		b.m.reshown = true
	}
}

// Logs returns the live receipt a log event of p names, if it is one
// not made stable yet (else None): a log event makes it stable.
func (b *Builder) Logs(e *trace.RunEvent) int32 {
	ps := &b.procs[e.P]
	k := e.Op
	if k < 0 || int(k) >= len(ps.Live) || ps.Live[k] == None || ps.stable[k] {
		return None
	}
	if r := &b.m.Run.Events[ps.Live[k]]; r.Kind == trace.Recv && r.Msg == e.Msg && r.Copy == e.Copy {
		return ps.Live[k]
	}
	return None
}

// isProgOp reports whether app op e is the op its program has at its
// number: of the same kind and, but for an internal op, message.
func (m *Model) isProgOp(e *trace.RunEvent) bool {
	op := m.ProgOp(e.P, e.Op)
	return e.Kind == op.Kind && (e.Kind == trace.Internal || e.Msg == op.Msg)
}
