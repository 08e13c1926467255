package consistency

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// MS's checkpoints and recoveries (SPEC §4.1, §4.2): numbering, skipped
// ticks, restarts, Rollback requests and their application.

// checkpoint judges a checkpoint's number: a basic one by its tick and
// above sn, a forced one above sn (its delivery owed at once), a recovery
// one r of the recovery it applies.
func (s *msSpec) checkpoint(seq int32, e *trace.RunEvent, p *msProc, d *msOwe) {
	if e.CkptType == trace.CkptInitial {
		return
	}
	if e.Sn == history.None {
		s.lacks(seq, "a checkpoint's sn")
		return
	}
	rule := ""
	switch e.CkptType {
	case trace.CkptBasic:
		if p.next++; e.Sn != p.next || e.Sn <= p.sn {
			rule = fmt.Sprintf("a basic checkpoint is numbered by its timer tick, this is tick %d, and it is taken only when that number is above sn %d", p.next, p.sn)
		}
	case trace.CkptForced:
		if e.Sn <= p.sn {
			rule = fmt.Sprintf("a forced checkpoint is taken only for a message numbered above sn %d, and takes its number", p.sn)
		}
		if d == nil || d.kind != oweAdopted { // else the adoption owes the delivery
			p.owes = append(p.owes, msOwe{kind: oweDeliverSn, seq: seq, n: e.Sn})
		}
	case trace.CkptRecovery:
		rule = s.recoveryCheckpoint(seq, e, p, d)
	}
	if rule != "" {
		s.divergef([]int32{seq}, "%s's %s checkpoint %d at seq %d is numbered %d\n%s", s.name(e.P), e.CkptType, e.Ckpt, seq, e.Sn, rule)
	}
	p.sn = e.Sn
}

// recoveryCheckpoint judges a recovery checkpoint: the application of a
// recovery (o, c, r) the process owes (a request's), with sn < r,
// numbered r; textbook, also the adoption of a message's incarnation. It
// returns the numbering rule broken, or "".
func (s *msSpec) recoveryCheckpoint(seq int32, e *trace.RunEvent, p *msProc, d *msOwe) string {
	fi := history.None
	if d != nil && d.kind == oweApply {
		fi = d.fi
	} else if f := s.recOf(e.Failure); s.textbook && f != history.None && s.rec(f).c > p.inc {
		fi = f
		p.owes = append(p.owes, msOwe{kind: oweAdopted, seq: seq, fi: fi})
	}
	if fi == history.None {
		adopts := map[bool]string{true: ", or adopts the higher incarnation of the message it delivers next"}[s.textbook]
		s.divergef([]int32{seq}, "%s's recovery checkpoint %d at seq %d applies no failure\n%[1]s takes it at t=%[4]s, but a recovery checkpoint applies the recovery of a Rollback request the process has received and not applied (at its arrival, or at the restart of a process that was down then)%[5]s, and %[1]s owes none: a process cannot act on a request it has not received",
			s.name(e.P), e.Ckpt, seq, e.T, adopts)
		if f := s.recOf(e.Failure); f != history.None { // follow the run
			s.apply(p, f)
			if s.textbook {
				p.adopt(s.rec(f))
			}
		}
		return ""
	}
	rec := s.rec(fi)
	if s.apply(p, fi); p.sn >= rec.r || e.Sn != rec.r {
		return fmt.Sprintf("a recovery checkpoint is numbered by the line r=%d of the recovery it applies, and taken only when sn %d is below it (else the process rolls back)", rec.r, p.sn)
	}
	return ""
}

// recOf returns the index of the failure at seq fs if its restart has
// made its recovery, else None.
func (s *msSpec) recOf(fs int32) int32 {
	if fi, ok := s.m.FailureAt(fs); ok && s.rec(fi).c > 0 {
		return fi
	}
	return history.None
}

// skip judges a skipped tick: MS takes a basic checkpoint at every tick
// numbered above sn, so an up process skips only the others, recording
// the tick's number and its sn. (A down process's skip is the run
// spec's.)
func (s *msSpec) skip(seq int32, e *trace.RunEvent, p *msProc) {
	if p.next++; e.Reason == trace.ReasonDown {
		return
	}
	if p.next > p.sn {
		s.divergef([]int32{seq}, "%s skips its timer tick %d at seq %d although its sn is %d\nMS takes a basic checkpoint at a tick whose number is above sn, and tick %[2]d is above %[1]s's latest checkpoint number %[4]d, rebuilt from the run",
			s.name(e.P), p.next, seq, p.sn)
	} else if e.Next != history.None && e.Next != p.next || e.Sn != history.None && e.Sn != p.sn {
		s.divergef([]int32{seq}, "%s's skipped tick at seq %d records a state it does not have\na skip records the tick's number (next, counting every tick) and the process's sn, rebuilt here from the run's checkpoints and ticks: next %d and sn %d, but the skip at seq %[2]d records next %[5]d and sn %[6]d",
			s.name(e.P), seq, p.next, p.sn, e.Next, e.Sn)
	}
}

// restart judges a restart: the failed process restores its latest
// checkpoint (number r) and stops there, makes recovery (o, F[o]+1, r)
// (the model's Failure; textbook: inc+1), owes its request to every other process, then the
// application of the requests that arrived while it was down, in order.
func (s *msSpec) restart(seq int32, e *trace.RunEvent, p *msProc) {
	fi := s.m.FailOf(seq)
	latest := s.m.RestoreOf(seq).Latest
	p.owes = p.owes[:0]
	taken, ck := s.b.Taken(e.P), s.restored(seq, latest)
	if p.sn = taken[ck].Sn; fi == history.None {
		return // it answers no failure: the run spec's
	}
	if ck != latest {
		s.restoredOther(seq, e, ck, latest, "MS restores the failed process's latest checkpoint")
	}
	s.restorePos(seq, e, taken[ck])
	if s.textbook {
		inc := p.inc + 1
		if e.Inc != history.None && e.Inc != inc {
			s.divergef([]int32{seq}, "%s's restart at seq %d says inc %d, not %d\na restarted process raises its incarnation by one, from %d: the textbook variant's inc is its own, adopted from others or raised at its restarts",
				s.name(e.P), seq, e.Inc, inc, p.inc)
		}
		s.incs[fi] = inc
		p.adopt(s.rec(fi))
	}
	s.apply(p, fi)
	s.dropStale(p, e.Pos)
	if len(s.procs) > 1 {
		p.owes = append(p.owes, msOwe{kind: oweRequests, seq: seq, fi: fi, sent: make([]bool, len(s.procs))})
	}
	for _, r := range p.pending {
		if f, ok := s.m.FailureAt(s.m.Event(r).Failure); ok {
			p.owes = append(p.owes, msOwe{kind: oweApply, seq: seq, fi: f, n: r, pending: true})
		}
	}
	p.pending = p.pending[:0]
}

// restorePos judges that an MS restore keeps exactly its checkpoint's
// ops: what it replays shows as recv events via log after it. (Fewer
// are the run spec's.)
func (s *msSpec) restorePos(seq int32, e *trace.RunEvent, ck history.Ckpt) {
	if e.Pos > ck.Pos {
		s.divergef([]int32{ck.Seq, seq}, "%s's %s at seq %d restores checkpoint %d, taken at pos %d, but says pos %d\nMS restores a checkpoint and stops at its position — what it replays from its log shows as recv events via log after the restore — so a restore of checkpoint %[4]d keeps pos %[5]d",
			s.name(e.P), e.Kind, seq, ck.ID, ck.Pos, e.Pos)
	}
}

// dropStale marks the entries at or after pos that are no longer valid
// dropped: after a restore the replay rule offers only the valid ones.
func (s *msSpec) dropStale(p *msProc, pos int32) {
	for k := max(pos, 0); int(k) < len(p.log); k++ {
		if ent := &p.log[k]; ent.seq != 0 && s.judge(p, s.m.PB(ent.ci)) == msStale {
			ent.dropped = true
		}
	}
}

// rollback judges a rollback: the application of a recovery (o, c, r)
// with sn ≥ r, which restores the earliest checkpoint numbered ≥ r it
// holds and stops there (one further back is domino-free's), caused by
// the request it owes — or, textbook, by a message of a higher
// incarnation.
func (s *msSpec) rollback(seq int32, e *trace.RunEvent, p *msProc, d *msOwe) {
	fi, cause := s.cause(seq, e, p, d)
	if fi == history.None {
		return
	}
	rule := "MS rolls back on a Rollback request it received (cause request) only"
	if s.textbook {
		rule = "textbook MS rolls back on a Rollback request it received (cause request) or a message naming a later incarnation (cause message)"
	}
	s.wrongCause(seq, e, cause, rule)
	rec, taken := s.rec(fi), s.b.Taken(e.P)
	want := s.b.EarliestHeld(e.P, s.m.RestoreOf(seq).Latest, rec.r)
	ck := s.restored(seq, want)
	switch {
	case want == history.None || p.sn < rec.r:
		s.divergef([]int32{seq}, "%s rolls back at seq %d though its sn %d is below the line %d\napplying recovery (%s, %d, r=%[4]d) at a process whose checkpoints are all numbered below %[4]d takes a recovery checkpoint, not a rollback",
			s.name(e.P), seq, p.sn, rec.r, s.name(rec.o), rec.c)
	case ck != history.None && ck != want && taken[ck].Pos >= taken[want].Pos:
		s.restoredOther(seq, e, ck, want, fmt.Sprintf("applying recovery (%s, %d, r=%d) MS restores the earliest checkpoint numbered ≥ %[3]d it holds", s.name(rec.o), rec.c, rec.r))
	}
	if ck == history.None {
		return
	}
	s.restorePos(seq, e, taken[ck])
	s.apply(p, fi)
	p.sn = taken[ck].Sn
	s.dropStale(p, e.Pos)
}

// cause returns the failure a rollback applies and the cause it has:
// the request the process owes, or (textbook) a message of a higher
// incarnation in its mailbox. A rollback for none diverges, and is
// followed as the run has it.
func (s *msSpec) cause(seq int32, e *trace.RunEvent, p *msProc, d *msOwe) (int32, trace.Cause) {
	if d != nil && d.kind == oweApply {
		return d.fi, trace.CauseRequest
	}
	fi := s.recOf(e.Failure)
	if fi != history.None {
		switch rec := s.rec(fi); {
		case s.textbook && e.Cause == trace.CauseMessage && rec.c > p.inc && s.mailboxHolds(e.P, rec):
			p.adopt(rec)
			return fi, trace.CauseMessage
		case !s.textbook && fGet(p.f, rec.o) >= rec.c, s.textbook && rec.c <= p.inc:
			s.divergef([]int32{seq}, "%s rolls back at seq %d (t=%s) for failure seq %d, whose recovery (%s, %d, r=%d) it has applied already\n%s applies each recovery once: a Rollback request for one it has applied is ignored",
				s.name(e.P), seq, e.T, e.Failure, s.name(rec.o), rec.c, rec.r, algName(s.m))
			return fi, e.Cause
		}
	}
	s.divergef([]int32{seq}, "%s rolls back at seq %d (t=%s) for no request it has received\n%s rolls back only to apply the recovery of a Rollback request it has received and not applied%s; %[1]s owes none at seq %[2]d: a process cannot act on a request it has not received",
		s.name(e.P), seq, e.T, algName(s.m), map[bool]string{true: ", or of a message in its mailbox naming a higher incarnation"}[s.textbook])
	return fi, e.Cause
}

// mailboxHolds reports whether p's mailbox holds a copy of the higher
// incarnation rec made, carrying its line (textbook adoption).
func (s *msSpec) mailboxHolds(p int32, rec msRec) bool {
	for ci := range int32(s.m.Copies.Len()) {
		if pb := s.m.PB(ci); pb != nil && s.b.InMailbox(ci) && s.m.CopyTo(ci) == p && pb.Inc == rec.c && pb.RecLine == rec.r {
			return true
		}
	}
	return false
}

// request handles a Rollback request's arrival: a down process keeps it
// for its restart; an up one owes its application at once if it has not
// applied that recovery (textbook: if its incarnation is higher).
func (s *msSpec) request(seq int32, e *trace.RunEvent, p *msProc) {
	if e.Failure == history.None {
		s.lacks(seq, "a control message's failure")
		return
	}
	switch fi := s.recOf(e.Failure); {
	case fi == history.None: // no such failure, or none restarted: the run spec's
	case s.b.Down(e.P):
		p.pending = append(p.pending, seq)
	case s.owes(p, fi):
		p.owes = append(p.owes, msOwe{kind: oweApply, seq: seq, fi: fi, n: seq})
	}
}

// owes reports whether p, receiving failure fi's request, must apply its
// recovery; textbook, it adopts the higher incarnation then.
func (s *msSpec) owes(p *msProc, fi int32) bool {
	rec := s.rec(fi)
	if !s.textbook {
		return fGet(p.f, rec.o) < rec.c
	}
	if rec.c <= p.inc {
		return false
	}
	p.adopt(rec)
	return true
}

// sendRequest judges a control message: a restarted process's Rollback
// request, carrying its recovery (o, c, r).
func (s *msSpec) sendRequest(seq int32, e *trace.RunEvent, d *msOwe) {
	if d == nil || d.kind != oweRequests {
		s.divergef([]int32{seq}, "%s sends a %s control message at seq %d outside its restart\n%s sends control messages only at a restart: the recovery's Rollback request, to every other process",
			s.name(e.P), e.Control, seq, algName(s.m))
		return
	}
	rec := s.rec(d.fi)
	s.carries(seq, e, d.fi, trace.ControlBody{Origin: rec.o, Count: rec.c, R: rec.r, Inc: history.None, K: history.None})
}

// apply records that p applied failure fi's recovery.
func (s *msSpec) apply(p *msProc, fi int32) {
	rec := s.rec(fi)
	if s.textbook || rec.c <= 0 {
		return
	}
	// p.f is kept sorted by process, as a run writes F.
	if k, ok := slices.BinarySearchFunc(p.f, rec.o, func(x trace.FEntry, o int32) int { return cmp.Compare(x.P, o) }); ok {
		p.f[k].Count = max(p.f[k].Count, rec.c)
	} else {
		p.f = slices.Insert(p.f, k, trace.FEntry{P: rec.o, Count: rec.c})
	}
}
