package history

import "github.com/ckpt-dev/ckpt/trace"

// checkpoint adds a checkpoint the process took, or the explicit initial
// one a foreign run may write. A pos absent or negative is taken as the
// live count, so that rules walking programs from it stay in range.
func (b *Builder) checkpoint(seq int32, e *trace.RunEvent, ps *procBuild) {
	m := b.m
	k, head := int32(len(ps.Taken)), &ps.Taken[ps.Held[len(ps.Held)-1]]
	ck := Ckpt{ID: e.Ckpt, Pos: e.Pos, Sn: e.Sn, Seq: seq, Type: e.CkptType, Parent: ps.Held[len(ps.Held)-1], Unstable: ps.unstable}
	if e.Pos < 0 {
		ck.Pos = int32(len(ps.Live))
	}
	if e.Sn == None {
		m.Missing.Sn = true
	}
	ck.snBelow = max(head.snBelow, head.Sn)
	if e.CkptType == trace.CkptInitial {
		ck.Pos, ck.ID, ck.Parent, ck.snBelow = 0, 0, None, None
		if ck.Sn == None {
			ck.Sn = 0
		}
		if len(ps.Taken) > 1 && ck.Sn != ps.Taken[0].Sn {
			// The checkpoints taken so far summarised the old number.
			m.rechain = true
		}
		ps.Taken[0] = ck
		return
	}
	ps.Taken = append(ps.Taken, ck)
	if e.Ckpt == None {
		m.Missing.CkptID = true
	} else {
		ps.indexID(e.Ckpt, k)
	}
	ps.Held = append(ps.Held, k)
	if fi, ok := m.FailureAt(e.Failure); ok && e.CkptType == trace.CkptRecovery {
		b.handle(fi, e.P, seq, ps)
	}
}

// indexID records that checkpoint k has id: nothing while ids are
// indexes (byID), else in the map, built from the checkpoints
// taken so far the first time an id is not its index.
func (ps *procBuild) indexID(id, k int32) {
	if ps.byID == nil {
		if id == k {
			return
		}
		ps.byID = make(map[int32]int32, k)
		for i, c := range ps.Taken[1:k] {
			if c.ID != None {
				ps.byID[c.ID] = int32(i) + 1
			}
		}
	}
	ps.byID[id] = k
}

// CkptByID returns the checkpoint p has taken with id (the latest one, if
// the run reuses ids; 0 is the initial one). A restore's checkpoint is
// Model.RestoredCkpt, resolved when it happened.
func (b *Builder) CkptByID(p, id int32) (Ckpt, bool) {
	ps := &b.procs[p]
	if k := ckptIndex(ps.Taken, ps.byID, id); k != None {
		return ps.Taken[k], true
	}
	return Ckpt{}, false
}

// handle records that process p handled failure fi at event seq.
func (b *Builder) handle(fi, p, seq int32, ps *procBuild) {
	m := b.m
	m.answers = append(m.answers, answer{seq, fi})
	m.Failures[fi].Handlers = append(m.Failures[fi].Handlers, seq)
	b.failProcOf(fi, p).handled = true
	m.Handlings = append(m.Handlings, Handling{F: fi, P: p, Seq: seq, Top: Top(ps.Live)})
}

// rollback applies a rollback event.
func (b *Builder) rollback(seq int32, e *trace.RunEvent, ps *procBuild) {
	m := b.m
	fi, ok := m.FailureAt(e.Failure)
	m.Missing.Failure = m.Missing.Failure || !ok
	b.restore(seq, e, ps, !m.Alg.Recovers())
	if ok {
		b.handle(fi, e.P, seq, ps)
	}
}

// restore applies a restart or rollback: the restored checkpoint's later
// checkpoints are dropped and every live op from pos on is undone (its
// copies put back as undo says; unsure for an algorithm whose rules the
// model does not know). It returns the index in taken of the checkpoint
// restored, or None.
func (b *Builder) restore(seq int32, e *trace.RunEvent, ps *procBuild, unsure bool) int32 {
	m := b.m
	ps.lastRestore = seq
	k := ckptIndex(ps.Taken, ps.byID, e.Restore)
	m.Restores = append(m.Restores, Restore{Seq: seq, Latest: ps.Held[len(ps.Held)-1], Restored: k, Want: None})
	m.restoreSeqs = append(m.restoreSeqs, seq)
	r := &m.Restores[len(m.Restores)-1]
	// The checkpoints taken after the one the restore names go, if the
	// process holds it. (Checkpoints without ids cannot be told apart: a
	// restore of none held is then as unknown as one without restore.)
	if k := ps.heldAt(e.Restore); e.Restore != None && k >= 0 {
		ps.Held = ps.Held[:k+1]
	} else if e.Restore == None || m.Missing.CkptID {
		m.Missing.Restore = true
	}
	pos := e.Pos
	if pos == None {
		m.Missing.Ops = true
		ps.posless = true
		return k
	}
	if pos < 0 {
		return k
	}
	pos = min(pos, int32(len(ps.Live)))
	if m.Alg == PK && k != None {
		r.Replayed = b.replayed(ps, k, pos)
	}
	keep := requeueNone
	switch {
	case unsure:
		keep = requeueUnsure
	case m.Alg == PK && e.Kind == trace.Rollback:
		keep = requeuePK
	}
	for _, s := range ps.Live[pos:] {
		if s != None {
			r.Undid = append(r.Undid, s)
		}
	}
	b.undo(ps, pos, seq, keep)
	return k
}

// heldAt returns the place in held of the latest checkpoint held with
// id, or -1. It looks from the latest: restores name recent ones.
func (ps *procBuild) heldAt(id int32) int {
	k := len(ps.Held) - 1
	for k >= 0 && ps.Taken[ps.Held[k]].ID != id {
		k--
	}
	return k
}

// Holds reports whether p holds a checkpoint with id.
func (b *Builder) Holds(p, id int32) bool { return b.procs[p].heldAt(id) >= 0 }

// replayed counts the live receipts a PK restart or rollback replays
// silently from the message log: those between the position of the
// restored checkpoint, taken[k], and pos. The run shows only the outcome
// of that replay (SPEC §6).
func (b *Builder) replayed(ps *procBuild, k, pos int32) int32 {
	n := int32(0)
	for k := max(int(ps.Taken[k].Pos), 0); k < min(int(pos), len(ps.Live)); k++ {
		if s := ps.Live[k]; s != None && b.m.Run.Events[s].Kind == trace.Recv {
			n++
		}
	}
	return n
}

// requeue says which copies of its undone receipts an undo puts back in
// the mailbox: none (MS, and every restart: SPEC §4.2, §5), the ones the
// PK spec says (a PK rollback: those no orphan of an announcement its
// process recorded), or unsure ones (an algorithm whose rules the model
// does not know, or an undo without a restore).
type requeue uint8

const (
	requeueNone requeue = iota
	requeuePK
	requeueUnsure
)

// undo truncates ps's live history to pos, marking the dropped ops as
// undone by event by (ImplicitUndo for a broken continuity), puts back
// in the mailbox the copies of undone receipts that keep says.
func (b *Builder) undo(ps *procBuild, pos int32, by int32, keep requeue) {
	m := b.m
	ps.logFrom, ps.Agreed = min(ps.logFrom, pos), min(ps.Agreed, pos)
	for k := len(ps.Live) - 1; k >= int(pos); k-- {
		s := ps.Live[k]
		if s == None {
			ps.gaps--
			continue
		}
		m.UndoneBy[s] = by
		e := &m.Run.Events[s]
		if e.Kind != trace.Recv {
			continue
		}
		if !ps.stable[k] {
			ps.unstable--
		}
		ci := m.Copies.Index(e.Msg, e.Copy)
		if keep == requeueNone || e.Via == trace.ViaLog || ci < 0 || m.Copies.Send[ci] == None {
			continue
		}
		back, sure := false, false
		if keep == requeuePK && b.putBack != nil {
			back, sure = b.putBack(e.P, ci)
		}
		// Put back, or maybe put back: whether it went back is unknown.
		switch {
		case !sure:
			m.Copies.box[ci] = unsure
		case back:
			m.Copies.box[ci] = putBack
		}
	}
	ps.Live = ps.Live[:pos]
	ps.stable = ps.stable[:pos]
}
