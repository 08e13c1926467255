package consistency

import (
	"fmt"
	"slices"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// PK's recovery (SPEC §5): the restart and its replay, tokens, rollbacks,
// resends and the resume.

// pkReplay is the restart a down process is writing: the events its
// replay runs at the restart's instant come before the restart event.
type pkReplay struct {
	ck    int32 // the checkpoint it must restore (index in Taken)
	stop  int32 // where replay stops before the crash position, or None: beyond it
	crash int32 // its live op count at its latest effective fail (the model's Snapshot.LiveAt)
	next  int32 // the next op the replay runs for the first time
	vt    trace.VT
	sent  []int32 // the ops it re-transmitted
	// unsure: where it stops cannot be told (a logged copy never sent).
	unsure bool
	events []int32 // the events written for it before the restart event
}

// atInstant judges that the events a restart's replay wrote before it
// share its instant: the replay is instant, at the restart (SPEC §5).
func (s *pkSpec) atInstant(seq int32, e *trace.RunEvent, r *pkReplay) {
	for _, x := range r.events {
		if !s.sameInstant(seq, s.m.Event(x)) {
			s.divergef([]int32{x, seq}, "%s is not at its restart's instant t=%s\na PK restart replays instantly, at the restart time, and writes what its replay re-transmits or runs for the first time at that instant, before the restart event", s.ev(x), e.T)
			return
		}
	}
}

// plan returns the restart p is writing, making it at its first event:
// having recorded the announcements that arrived while it was down, it
// restores the latest checkpoint that is no orphan of them and replays
// the stable log up to the first receive with no stable entry at the
// crash, or whose copy is such an orphan.
func (s *pkSpec) plan(seq, pid int32, p *pkProc) *pkReplay {
	if p.replay != nil {
		return p.replay
	}
	for _, r := range p.pending {
		if a := s.annOf(s.m.Event(r).Failure); a != nil {
			p.ann.add(*a)
		}
	}
	ck, vt := s.latestNonOrphan(pid, p)
	if vt == nil {
		s.dropped(seq)
		return nil
	}
	r := &pkReplay{ck: ck, stop: history.None, vt: slices.Clone(vt)}
	if fi, ok := s.m.FailureAt(s.b.LastFail(pid)); ok {
		r.crash = s.m.Failures[fi].Snap.LiveAt[pid]
	}
	r.next = r.crash
	live, stable := s.b.Live(pid), s.b.Stable(pid)
	for k := s.b.Taken(pid)[ck].Pos; k < r.crash && int(k) < len(live); k++ {
		if live[k] == history.None || s.m.Event(live[k]).Kind != trace.Recv {
			continue
		}
		ci := s.copyOf(s.m.Event(live[k]))
		cvt, _, ok := s.copyVT(ci)
		if stable[k] && ci < 0 {
			// A logged copy never sent (orphan-free's): no announcement
			// makes it an orphan, but with some recorded, whether one
			// does cannot be told.
			if r.unsure = len(p.ann.list) > 0; r.unsure {
				s.res.cannotJudge("a logged receipt's copy was never sent, so whether it is an orphan of the announcements recorded, and replay stops before it, cannot be told")
				break
			}
			continue
		}
		if stable[k] && !ok {
			s.dropped(seq)
			return nil
		}
		if !stable[k] || p.ann.orphan(cvt) {
			r.stop = k
			break
		}
		r.vt.Merge(cvt)
	}
	p.replay = r
	return r
}

// latestNonOrphan returns the latest checkpoint p holds that is no orphan
// of the announcements it recorded, and its vector (nil: dropped).
func (s *pkSpec) latestNonOrphan(pid int32, p *pkProc) (int32, trace.VT) {
	held := s.b.Held(pid)
	for k := len(held) - 1; k >= 0; k-- {
		if int(held[k]) >= len(p.ckpts) || p.ckpts[held[k]] == nil {
			return held[k], nil
		}
		if vt := p.ckpts[held[k]]; k == 0 || !p.ann.orphan(vt) {
			return held[k], vt
		}
	}
	return 0, nil
}

// replayed judges an op of a down process: part of its restart's replay,
// written at the restart's instant before the restart event — a
// re-transmission of a send the replay re-executes, or an op it runs for
// the first time (past the crash position, up to the first receive).
func (s *pkSpec) replayed(seq int32, e *trace.RunEvent, p *pkProc) {
	r := s.plan(seq, e.P, p)
	if r == nil {
		return
	}
	r.events = append(r.events, seq)
	if e.Resend {
		s.retransmit(seq, e, r)
		return
	}
	if r.stop != history.None || e.Op != r.next || e.Kind == trace.Recv {
		s.divergef([]int32{seq}, "%s executes op %d at seq %d while it is down, which its restart's replay does not run\na down process executes nothing; its restart replays from checkpoint %d, re-executing ops up to the first receive with no stable log entry (or an orphan one) and running for the first time, past its crash at op %d, ops that are no receive; %s is none of these",
			s.name(e.P), e.Op, seq, s.b.Taken(e.P)[r.ck].ID, r.crash, s.m.Describe(seq))
		return
	}
	r.next = e.Op + 1
	if e.Kind == trace.Send {
		s.sent(seq, e, &pkClock{base: r.vt})
	}
}

// retransmit judges a resend of a restart: the replay transmits again
// every send it re-executes, once, with the copy's piggyback.
func (s *pkSpec) retransmit(seq int32, e *trace.RunEvent, r *pkReplay) {
	end := r.crash
	if r.stop != history.None {
		end = r.stop
	}
	lo, again := s.b.Taken(e.P)[r.ck].Pos, slices.Contains(r.sent, e.Op)
	if e.Op < lo || e.Op >= end || again {
		s.divergef([]int32{seq}, "%s's re-transmission of %s at seq %d repeats a send its restart does not re-execute\na PK restart transmits again, once each, the sends its replay re-executes, ops %d to %d of %s; the resend at seq %d repeats op %d%s",
			s.name(e.P), s.m.MsgName(e.Msg), seq, lo, end-1, s.name(e.P), seq, e.Op, map[bool]string{true: " a second time"}[again])
	}
	r.sent = append(r.sent, e.Op)
	s.repeats(seq, e, s.b.LastFail(e.P))
}

// repeats judges what a resend repeats — its failure and piggyback are
// the ones of its cause and of the copy repeated — and records its copy.
func (s *pkSpec) repeats(seq int32, e *trace.RunEvent, failure int32) {
	if e.Failure != history.None && e.Failure != failure {
		s.divergef([]int32{seq}, "%s's resend of %s at seq %d names failure seq %d, not seq %d\na resend answers the failure that caused it — its process's own at a restart, the token's at a hop — which is failure seq %d",
			s.name(e.P), s.m.MsgName(e.Msg), seq, e.Failure, failure, failure)
	}
	orig := s.m.SendOf[seq]
	if orig == history.None {
		return // no live send: orphan-free's (the run spec's resendLive)
	}
	oci := s.copyOf(s.m.Event(orig))
	vt, inc, ok := s.copyVT(oci)
	if !ok {
		if oci >= 0 {
			s.dropped(seq)
		}
		return
	}
	if got := s.pbVT(seq, e); got == nil {
		return
	} else if !got.Equal(vt) {
		s.divergef([]int32{orig, seq}, "the resend of %s at seq %d does not carry the piggyback of copy %d\na resend repeats copy %d of %s, sent at seq %d, with exactly its piggyback, so that receivers judge it as they would the original; the resend at seq %d carries %s, not %s",
			s.m.MsgName(e.Msg), seq, s.m.Event(orig).Copy, s.m.Event(orig).Copy, s.m.MsgName(e.Msg), orig, seq, vtString(got), vtString(vt))
	}
	if ci := s.copyOf(e); ci >= 0 {
		s.setCopy(ci, inc, vt)
	}
}

// pkRestores is the checkpoint a PK restart or rollback restores.
const pkRestores = "PK restores the latest checkpoint that is no orphan of the announcements recorded by then"

// restart judges a restart against the replay its plan says: the
// checkpoint restored, where it stops and the sends it re-transmitted;
// then the process records its announcement (i, inc, k), raises inc,
// sends its token and holds until the token returns.
func (s *pkSpec) restart(seq int32, e *trace.RunEvent, p *pkProc) {
	fi := s.m.FailOf(seq)
	r := s.plan(seq, e.P, p)
	if r == nil {
		return
	}
	if s.b.Restarts(e.P) == 1 {
		i, _ := slices.BinarySearch(s.restarted, e.P)
		s.restarted = slices.Insert(s.restarted, i, e.P)
	}
	p.replay = nil
	if fi == history.None { // it answers no failure: the run spec's (runSpec.restart)
		s.resync(seq, e, p, r.ck)
		return
	}
	s.atInstant(seq, e, r)
	ck := s.restored(seq, r.ck)
	if ck != r.ck {
		s.restoredOther(seq, e, ck, r.ck, pkRestores)
	}
	s.stopsAt(seq, e, p, r)
	a := *s.m.Failures[fi].Ann // the model's: (e.P, inc, e.Pos)
	p.ann.add(a)
	for _, x := range s.early {
		if x[1] == s.m.Failures[fi].Seq {
			s.procs[x[0]].ann.add(a)
		}
	}
	s.resync(seq, e, p, ck)
	p.waiting = seq
	p.duties = append(p.duties[:0], pkDuty{kind: dutyOwnToken, seq: seq, fi: fi})
	for _, t := range p.pending {
		if b := s.m.Run.Body(s.m.Event(t)); b != nil && b.Origin != e.P {
			p.duties = append(p.duties, pkDuty{kind: dutyHop, seq: seq, fi: s.tokenFailure(s.m.Event(t)), recv: t})
		}
	}
	p.pending = p.pending[:0]
}

// stopsAt judges a restart's pos — where its replay stops — and that it
// re-transmitted every send it re-executes.
func (s *pkSpec) stopsAt(seq int32, e *trace.RunEvent, p *pkProc, r *pkReplay) {
	want, ck := r.stop, s.b.Taken(e.P)[r.ck]
	if want == history.None && !r.unsure {
		want = r.next
		if op, ok := s.b.ProgOp(e.P, want); ok && op.Kind != trace.Recv && e.Pos == want {
			want = history.None // a first-time op left out: judged below, with its kind
			s.divergef([]int32{seq}, "%s's restart at seq %d stops at pos %d, before op %d (%s), which is no receive\npast its crash at op %d, a restart runs for the first time every op up to the first receive, which no stable log entry can hold",
				s.name(e.P), seq, e.Pos, e.Pos, op.Kind, r.crash)
		}
	}
	if want != history.None && !r.unsure && e.Pos != want {
		s.divergef([]int32{seq}, "%s's restart at seq %d stops at pos %d, the replay rule says %d\nreplaying from checkpoint %d (pos %d) with the stable log at the crash stops before %s, i.e. at pos %d, but the restart claims pos %d",
			s.name(e.P), seq, e.Pos, want, ck.ID, ck.Pos, s.stopWhy(e.P, p, want, r.stop != history.None), want, e.Pos)
	}
	end := min(e.Pos, r.crash)
	for k := ck.Pos; k < end; k++ {
		if op, ok := s.b.ProgOp(e.P, k); ok && op.Kind == trace.Send && !slices.Contains(r.sent, k) {
			s.divergef([]int32{seq}, "%s's restart at seq %d does not transmit its send op %d (%s) again\na PK restart re-executes ops %d to %d from checkpoint %d and, not knowing which sends went out before the crash, transmits every send among them again at its time, before the restart event; op %d is a send and the run shows none",
				s.name(e.P), seq, k, s.m.MsgName(op.Msg), ck.Pos, e.Pos-1, ck.ID, k)
			break
		}
	}
}

// stopWhy says what stops a restart's replay at op pos.
func (s *pkSpec) stopWhy(pid int32, p *pkProc, pos int32, logged bool) string {
	op, ok := s.b.ProgOp(pid, pos)
	switch {
	case !ok:
		return "the end of its program"
	case logged && int(pos) < len(s.b.Live(pid)) && s.b.Stable(pid)[pos]:
		if vt, _, ok := s.copyVT(s.copyOf(s.m.Event(s.b.Live(pid)[pos]))); ok {
			a := p.ann.orphanBy(vt)
			return fmt.Sprintf("op %d, whose logged %s is an orphan of announcement (%s, inc %d, k %d)", pos, s.m.MsgName(op.Msg), s.name(a.Origin), a.Inc, a.K)
		}
	}
	return fmt.Sprintf("op %d, a receive of %s with no stable log entry at the crash", pos, s.m.MsgName(op.Msg))
}

// resync sets p's vector after a restore of checkpoint ck: the
// checkpoint's, merged with the receipts the restore keeps (own entry
// (inc, pos)), and takes the undone receipts out of its live set (rsum,
// rn, blind).
func (s *pkSpec) resync(seq int32, e *trace.RunEvent, p *pkProc, ck int32) {
	rs := s.m.RestoreOf(seq)
	if int(ck) >= len(p.ckpts) || p.ckpts[ck] == nil {
		s.dropped(seq)
		return
	}
	for _, u := range rs.Undid {
		ue := s.m.Event(u)
		if ue.Kind != trace.Recv {
			continue
		}
		// What recv counted it as, not what its copy is now.
		if i := slices.Index(p.blind, u); i >= 0 {
			p.blind = slices.Delete(p.blind, i, i+1)
		} else if ci := s.copyOf(ue); ci >= 0 && int(ci) < len(s.copies) {
			p.rsum -= trace.IdentityHash(trace.Identity{Msg: ue.Msg, Inc: s.copies[ci].inc})
			p.rn--
		}
	}
	rs.VT = p.ckpts[ck]
	p.clock.reset(rs.VT, &s.unmerged)
	live := s.b.Live(e.P)
	for k := s.b.Taken(e.P)[ck].Pos; k < e.Pos && int(k) < len(live); k++ {
		if live[k] != history.None && s.m.Event(live[k]).Kind == trace.Recv {
			if vt, _, ok := s.copyVT(s.copyOf(s.m.Event(live[k]))); ok {
				p.clock.take(vt, len(s.procs), &s.unmerged)
			}
		}
	}
}

// rollback judges a token hop's rollback: the process restores its
// latest checkpoint that is no orphan of the announcements it recorded
// (how far it undoes is minimal-rollback's), and replays silently.
func (s *pkSpec) rollback(seq int32, e *trace.RunEvent, p *pkProc, d *pkDuty) {
	if d == nil || d.kind != dutyHop {
		s.divergef([]int32{seq}, "%s rolls back at seq %d (t=%s) for no token it has received\nPK rolls back only when a token's announcement makes its state an orphan, at the token's arrival: a process cannot act on a token it has not received",
			s.name(e.P), seq, e.T)
	} else if e.Cause != trace.CauseNone && e.Cause != trace.CauseToken {
		s.wrongCause(seq, e, trace.CauseToken, "PK rolls back on a token it received (cause token) only")
	} else if t := s.m.Event(d.recv); e.Failure != t.Failure {
		s.divergef([]int32{d.recv, seq}, "%s's rollback at seq %d says cause token, but %s received no token control message for failure seq %d\na rollback answers the token that caused it, and the token %s received at seq %d is failure seq %d's",
			s.name(e.P), seq, s.name(e.P), e.Failure, s.name(e.P), d.recv, t.Failure)
	}
	ck := s.restored(seq, p.target)
	if ck != p.target {
		s.restoredOther(seq, e, ck, p.target, pkRestores)
	}
	s.resync(seq, e, p, ck)
}

// token handles a token's arrival: a down process records it for its
// restart; an up one records the announcement and, unless the token is
// its own, owes the hop at once: a rollback if its state is an orphan,
// the resends, the forward. Its own current token ends its hold.
func (s *pkSpec) token(seq int32, e *trace.RunEvent, p *pkProc) {
	if e.Control != trace.ControlToken {
		return // the shape's to report
	}
	b := s.m.Run.Body(e)
	if b == nil || b.Origin == history.None {
		s.lacks(seq, "a token's body")
		return
	}
	if s.b.Down(e.P) {
		p.pending = append(p.pending, seq)
		return
	}
	fi := s.tokenFailure(e)
	switch a := s.annOf(e.Failure); {
	case a != nil:
		p.ann.add(*a) // the announcement its restart made (the body is the sender's to get right)
	case e.Failure != history.None:
		// A token of a failure yet to come (a forged run: the run spec's
		// controlArrived): its announcement is recorded once made.
		s.early = append(s.early, [2]int32{e.P, e.Failure})
	}
	if b.Origin == e.P {
		if p.waiting != history.None && b.Inc == s.b.Restarts(e.P)-1 {
			p.duties = append(p.duties, pkDuty{kind: dutyResume, seq: seq})
		}
		return // an older own token is ignored
	}
	p.duties = append(p.duties, pkDuty{kind: dutyHop, seq: seq, fi: fi, recv: seq})
}

// tokenFailure returns the index in Failures of the failure token
// control_recv e names, or None: it names no effective fail (a forged
// run), or one yet to come. FailureAt's index is then where that seq
// would go, some other failure's or past the end, and a hop judged by it
// is judged against another failure's token list, or reads past the
// failures (the checker panicked).
func (s *pkSpec) tokenFailure(e *trace.RunEvent) int32 {
	if fi, ok := s.m.FailureAt(e.Failure); ok {
		return fi
	}
	return history.None
}
