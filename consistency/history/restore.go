package history

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/trace"
)

// checkpoint adds a checkpoint the process took, or the explicit initial
// one a foreign run may write.
func (b *Builder) checkpoint(seq int32, e *trace.RunEvent, ps *procBuild) {
	m := b.m
	head := &ps.taken[ps.held[len(ps.held)-1]]
	ck := Ckpt{ID: e.Ckpt, Pos: e.Pos, Sn: e.Sn, Seq: seq, Type: e.CkptType,
		Index: int32(len(ps.taken)), Parent: head.Index, Unstable: ps.unstable}
	switch {
	case e.Pos == None:
		ck.Pos = int32(len(ps.live))
	case e.Pos < 0:
		// Rules walk programs from a checkpoint's pos: keep it in range.
		b.malformed(NegativePos, seq, func() string { return fmt.Sprintf("event %d: negative pos %d", seq, e.Pos) })
		ck.Pos = int32(len(ps.live))
	case e.Pos != int32(len(ps.live)):
		live := len(ps.live)
		b.anomaly(CkptPos, seq, func() (string, string) {
			return fmt.Sprintf("checkpoint at seq %d has pos %d", seq, e.Pos),
				fmt.Sprintf("%s had %d live ops when it took checkpoint %d at seq %d, but the checkpoint says pos %d",
					m.ProcName(e.P), live, e.Ckpt, seq, e.Pos)
		})
	}
	if e.Sn == None {
		m.Missing.Sn = true
	}
	ck.sorted = head.sorted && head.Pos <= ck.Pos
	ck.snBelow = max(head.snBelow, head.Sn)
	if e.CkptType == trace.CkptInitial {
		ck.Pos, ck.ID, ck.Index, ck.Parent, ck.sorted, ck.snBelow = 0, 0, 0, None, true, None
		if ck.Sn == None {
			ck.Sn = 0
		}
		if len(ps.taken) > 1 && ck.Sn != ps.taken[0].Sn {
			// The checkpoints taken so far summarised the old number.
			m.rechain = true
		}
		ps.taken[0] = ck
		return
	}
	ps.taken = append(ps.taken, ck)
	if e.Ckpt == None {
		m.Missing.CkptID = true
	} else {
		if old, ok := checkpointByID(ps.taken[:ck.Index], ps.byID, e.Ckpt); ok {
			b.anomaly(CkptIDReused, seq, func() (string, string) {
				return fmt.Sprintf("%s reuses checkpoint id %d at seq %d", m.ProcName(e.P), e.Ckpt, seq),
					fmt.Sprintf("checkpoint ids are unique per process (0 is the initial checkpoint), but %s's checkpoint at seq %d has id %d, which %s",
						m.ProcName(e.P), seq, e.Ckpt, ckptWas(old))
			})
		}
		ps.indexID(e.Ckpt, ck.Index)
	}
	ps.held = append(ps.held, ck.Index)
	if e.CkptType == trace.CkptRecovery && e.Failure != None {
		if fi, ok := b.attributed(seq, e); ok {
			b.handle(fi, e.P, seq, ps)
		}
	}
}

// indexID records that checkpoint k has id: nothing while ids are
// indexes (Proc.byID), else in the map, built from the checkpoints
// taken so far the first time an id is not its index.
func (ps *procBuild) indexID(id, k int32) {
	if ps.byID == nil {
		if id == k {
			return
		}
		ps.byID = make(map[int32]int32, k)
		for i, c := range ps.taken[1:k] {
			if c.ID != None {
				ps.byID[c.ID] = int32(i) + 1
			}
		}
	}
	ps.byID[id] = k
}

// ckptWas says which checkpoint an id named before.
func ckptWas(c Ckpt) string {
	if c.Seq == None {
		return "is the initial checkpoint's"
	}
	return fmt.Sprintf("the checkpoint at seq %d has already", c.Seq)
}

// attributed returns the failure a rollback or recovery checkpoint names,
// recording an anomaly when the name is no effective fail event or the
// failure has not restarted yet (its recovery cannot be known).
func (b *Builder) attributed(seq int32, e *trace.RunEvent) (int32, bool) {
	m := b.m
	fi, ok := m.FailureAt(e.Failure)
	if !ok {
		if e.Failure != None {
			b.anomaly(FailureNotFail, seq, func() (string, string) {
				return fmt.Sprintf("%s at seq %d answers failure seq %d, which is no fail event", e.Kind, seq, e.Failure),
					fmt.Sprintf("the %s of %s at seq %d names failure seq %d, but the run has no effective fail event there", e.Kind, m.ProcName(e.P), seq, e.Failure)
			})
		}
		return None, false
	}
	if m.Failures[fi].Restart == None {
		b.anomaly(HandledBeforeRestart, seq, func() (string, string) {
			return fmt.Sprintf("%s at seq %d answers %s before its restart", e.Kind, seq, m.FailName(fi)),
				fmt.Sprintf("a failure is announced at its process's restart, but the %s of %s at seq %d answers %s, whose process has not restarted yet",
					e.Kind, m.ProcName(e.P), seq, m.FailName(fi))
		})
	}
	return fi, true
}

// handle records that process p handled failure fi at event seq.
func (b *Builder) handle(fi, p, seq int32, ps *procBuild) {
	m := b.m
	m.answers = append(m.answers, answer{seq, fi})
	m.Failures[fi].Handlers = append(m.Failures[fi].Handlers, seq)
	b.failProcOf(fi, p).handled = true
	m.Handlings = append(m.Handlings, Handling{F: fi, P: p, Seq: seq, Top: Top(ps.live)})
}

// rollback applies a rollback event.
func (b *Builder) rollback(seq int32, e *trace.RunEvent, ps *procBuild) {
	m := b.m
	if ps.down {
		b.anomaly(RollbackWhileDown, seq, func() (string, string) {
			return fmt.Sprintf("%s rolls back at seq %d while it is down", m.ProcName(e.P), seq),
				fmt.Sprintf("%s failed at seq %d and has not restarted, so it executes nothing, but the run shows it rolling back at seq %d",
					m.ProcName(e.P), ps.lastFail, seq)
		})
	}
	fi, ok := b.attributed(seq, e)
	if !ok {
		m.Missing.Failure = true
	}
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
	k := ckptIndex(ps.taken, ps.byID, e.Restore)
	m.Restores = append(m.Restores, Restore{Seq: seq, Latest: ps.held[len(ps.held)-1], Restored: k, Want: None})
	m.restoreSeqs = append(m.restoreSeqs, seq)
	r := &m.Restores[len(m.Restores)-1]
	if e.Restore != None {
		b.dropAfter(seq, e, ps)
	} else {
		m.Missing.Restore = true
	}
	pos := e.Pos
	if pos == None {
		m.Missing.Ops = true
		ps.posless = true
		return k
	}
	if pos < 0 {
		b.malformed(NegativePos, seq, func() string { return fmt.Sprintf("event %d: negative pos %d", seq, pos) })
		return k
	}
	if pos > int32(len(ps.live)) {
		live := len(ps.live)
		b.anomaly(PosBeyondLive, seq, func() (string, string) {
			return fmt.Sprintf("%s at seq %d keeps %d ops but has only %d", e.Kind, seq, pos, live),
				fmt.Sprintf("%s had %d live ops at seq %d, so a %s cannot keep the first %d", m.ProcName(e.P), live, seq, e.Kind, pos)
		})
		pos = int32(len(ps.live))
	}
	b.belowCkpt(seq, e, ps, k)
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
	for _, s := range ps.live[pos:] {
		if s != None {
			r.Undid = append(r.Undid, s)
		}
	}
	n := b.undo(ps, pos, seq, keep)
	r.Undone = int32(n)
	if e.Undone != None && int(e.Undone) != n {
		b.anomaly(UndoneCount, seq, func() (string, string) {
			return fmt.Sprintf("%s at seq %d claims %d ops undone, the checker counts %d", e.Kind, seq, e.Undone, n),
				fmt.Sprintf("%s had %d live ops before seq %d and kept %d, so %d were undone", m.ProcName(e.P), int(pos)+n, seq, pos, n)
		})
	}
	return k
}

// dropAfter drops the checkpoints taken after the one a restore names.
func (b *Builder) dropAfter(seq int32, e *trace.RunEvent, ps *procBuild) {
	k := len(ps.held) - 1
	for k >= 0 && ps.taken[ps.held[k]].ID != e.Restore {
		k--
	}
	if k >= 0 {
		ps.held = ps.held[:k+1]
		return
	}
	m := b.m
	if m.Missing.CkptID {
		// Checkpoints without ids cannot be told apart: the restore is
		// as unknown as one that names none.
		m.Missing.Restore = true
		return
	}
	b.anomaly(UnheldRestore, seq, func() (string, string) {
		return fmt.Sprintf("%s restores checkpoint %d it does not hold", m.ProcName(e.P), e.Restore),
			fmt.Sprintf("at seq %d %s restores checkpoint %d, but no checkpoint with that id is among the checkpoints it holds (it took it never, or a rollback discarded it)",
				seq, m.ProcName(e.P), e.Restore)
	})
}

// replayed counts the live receipts a PK restart or rollback replays
// silently from the message log: those between the position of the
// restored checkpoint, taken[k], and pos. The run shows only the outcome
// of that replay (SPEC §6).
func (b *Builder) replayed(ps *procBuild, k, pos int32) int32 {
	n := int32(0)
	for k := max(int(ps.taken[k].Pos), 0); k < min(int(pos), len(ps.live)); k++ {
		if s := ps.live[k]; s != None && b.m.Run.Events[s].Kind == trace.Recv {
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
// in the mailbox the copies of undone receipts that keep says, and
// returns how many live ops it dropped.
func (b *Builder) undo(ps *procBuild, pos int32, by int32, keep requeue) int {
	m := b.m
	n := 0
	ps.logFrom = min(ps.logFrom, pos)
	for k := len(ps.live) - 1; k >= int(pos); k-- {
		s := ps.live[k]
		if s == None {
			ps.gaps--
			continue
		}
		m.UndoneBy[s] = by
		n++
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
		if back || !sure {
			b.requeue(ci, sure)
		}
	}
	ps.live = ps.live[:pos]
	ps.stable = ps.stable[:pos]
	return n
}

// belowCkpt checks that a restore keeps (pos, as the run says it) at
// least the ops of the checkpoint it restores, taken[k]: the checkpoint
// holds the state after its pos ops, and replay only moves forward from
// it, so no algorithm can undo ops the checkpoint it restores holds.
func (b *Builder) belowCkpt(seq int32, e *trace.RunEvent, ps *procBuild, k int32) {
	pos := e.Pos
	if k == None || pos >= ps.taken[k].Pos {
		return
	}
	ck := ps.taken[k]
	m := b.m
	b.anomaly(RestoreBelowCkpt, seq, func() (string, string) {
		msg := fmt.Sprintf("%s's %s at seq %d restores checkpoint %d, taken at pos %d, but says pos %d", m.ProcName(e.P), e.Kind, seq, e.Restore, ck.Pos, pos)
		return msg, wellFormedBecause(msg + ": a restored checkpoint holds the state after its pos ops, and replay only moves forward from it")
	})
}
