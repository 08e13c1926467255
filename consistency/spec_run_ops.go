package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// The run spec's ops and copies: op continuity, one program whatever
// the execution, copies numbered in order, each taken from the mailbox
// it was sent to, resends of live sends.

// op judges an app op (send, recv, internal; not a resend).
func (s *runSpec) op(seq int32, e *trace.RunEvent) {
	if e.Op == history.None {
		s.copies(seq, e) // no live history, but the copy is still sent or taken
		return
	}
	s.sawOp = true
	s.env.opAfterEnv(s, seq, e)
	if !s.b.OpInRange(seq, e) {
		s.malformed(seq, func() string { return fmt.Sprintf("event %d: op %d out of range", seq, e.Op) })
		return
	}
	if live := s.liveCount(e.P); e.Op != live && !(e.Op < live && s.b.Posless(e.P)) {
		s.fail(equivalenceAt, []int32{seq}, func() (string, string) {
			return fmt.Sprintf("broken op continuity at seq %d", seq),
				fmt.Sprintf("%s had %d live ops before seq %d, so its next op should be op %d, but the run says op %d",
					s.name(e.P), live, seq, live, e.Op)
		})
	}
	if s.b.Down(e.P) {
		s.procs[e.P].downOps = append(s.procs[e.P].downOps, seq)
	}
	if was, ok := s.b.Shown(e.P, e.Op); ok && (was.Kind != e.Kind || (e.Kind != trace.Internal && was.Msg != e.Msg)) {
		s.fail(equivalenceAt, []int32{seq}, func() (string, string) {
			return fmt.Sprintf("%s op %d differs between executions", s.name(e.P), e.Op),
				fmt.Sprintf("a piecewise-deterministic program re-executes the same op at the same index, but op %d of %s was %s earlier and is %s%s at seq %d",
					e.Op, s.name(e.P), was.Kind, e.Kind, s.m.MsgOpt(e.Msg), seq)
		})
	}
	s.copies(seq, e)
}

// copies judges the copy a send transmits or a receive takes.
func (s *runSpec) copies(seq int32, e *trace.RunEvent) {
	switch e.Kind {
	case trace.Send:
		s.transmits(seq, e)
	case trace.Recv:
		ci := s.copyOf(e)
		if ci < 0 || s.m.Copies.Orig[ci] == history.None {
			if e.Copy > 0 {
				s.fail(orphanFreeAt, []int32{seq}, func() (string, string) {
					return fmt.Sprintf("%s received copy %d of %s that was never sent", s.name(e.P), e.Copy, s.m.MsgName(e.Msg)),
						fmt.Sprintf("the run shows no send of copy %d of %s before seq %d", e.Copy, s.m.MsgName(e.Msg), seq)
				})
			}
			return
		}
		s.fromSender(seq, e, ci)
		if e.Via != trace.ViaLog {
			s.takes(seq, e, ci)
		}
	}
}

// transmits checks the copy number of a send or resend: copies number
// every transmission of a message id 1, 2, … (SPEC §6), each used once.
func (s *runSpec) transmits(seq int32, e *trace.RunEvent) {
	m, cp := e.Msg, e.Copy
	if m < 0 || int(m) >= len(s.m.Run.Msgs) || cp <= 0 {
		return
	}
	switch n := s.b.CopyCount(m); {
	case cp <= n:
		s.fail(equivalenceAt, []int32{seq}, func() (string, string) {
			return fmt.Sprintf("copy %d of %s is sent twice", cp, s.m.MsgName(m)),
				fmt.Sprintf("the send at seq %d numbers its copy %d, but %s already has copies 1 to %d: copy numbers count every transmission of a message id, so each is used once",
					seq, cp, s.m.MsgName(m), n)
		})
	case cp > n+1:
		s.fail(equivalenceAt, []int32{seq}, func() (string, string) {
			return fmt.Sprintf("copy numbers of %s jump from %d to %d", s.m.MsgName(m), n, cp),
				fmt.Sprintf("the send at seq %d numbers its copy %d, but %s had only %d copies before: copy numbers count every transmission of a message id, so none is skipped",
					seq, cp, s.m.MsgName(m), n)
		})
	}
}

// fromSender checks a receive's from against the process that
// transmitted its copy: a copy has one sender. A receive without from is
// not judged for it.
func (s *runSpec) fromSender(seq int32, e *trace.RunEvent, ci int32) {
	sent := s.m.Copies.Send[ci]
	if e.Peer == history.None || sent == history.None || s.m.Event(sent).P == e.Peer {
		return
	}
	from := s.m.Event(sent).P
	s.fail(equivalenceAt, []int32{seq}, func() (string, string) {
		return fmt.Sprintf("%s receives copy %d of %s at seq %d from %s, but %s sent it", s.name(e.P), e.Copy, s.m.MsgName(e.Msg), seq, s.name(e.Peer), s.name(from)),
			fmt.Sprintf("copy %d of %s was transmitted by %s at seq %d, so a receive of it names %s as its sender, but the receive at seq %d says from %s",
				e.Copy, s.m.MsgName(e.Msg), s.name(from), sent, s.name(from), seq, s.name(e.Peer))
	})
}

// takes checks a receive or discard taking copy ci from p's mailbox: it
// was sent there, and (a discard) is in it, or was logged by MS.
func (s *runSpec) takes(seq int32, e *trace.RunEvent, ci int32) {
	m := s.m
	if to := m.CopyTo(ci); to != history.None && to != e.P {
		s.fail(equivalenceAt, []int32{seq}, func() (string, string) {
			return fmt.Sprintf("%s takes copy %d of %s, which was sent to %s", s.name(e.P), e.Copy, m.MsgName(e.Msg), s.name(to)),
				fmt.Sprintf("copy %d of %s was sent to %s at seq %d, so it can reach no other mailbox, but %s takes it at seq %d",
					e.Copy, m.MsgName(e.Msg), s.name(to), m.Copies.Send[ci], s.name(e.P), seq)
		})
		return
	}
	if e.Via != trace.ViaLog {
		s.env.arrived(s, seq, e, ci)
	}
	if e.Kind == trace.Discard && !s.b.MayHold(ci) {
		s.discardTaken(seq, e, ci)
	}
}

// discardTaken judges a discard of a copy that is not in the mailbox. A
// copy nobody took is in no message log either (a malformed run); one
// taken before can come only from MS's replay log, as a receipt logged
// earlier, and MS drops the entry when it discards it: anything else
// breaks the algorithm's rules.
func (s *runSpec) discardTaken(seq int32, e *trace.RunEvent, ci int32) {
	m := s.m
	t := s.b.TakenBy(ci)
	if t == history.None {
		s.fail(equivalenceAt, []int32{seq}, func() (string, string) {
			return fmt.Sprintf("%s discards copy %d of %s it never had", s.name(e.P), e.Copy, m.MsgName(e.Msg)),
				fmt.Sprintf("a discard judges a copy from the mailbox or the message log, but copy %d of %s is in neither at seq %d: it was sent at seq %d and nobody took it before",
					e.Copy, m.MsgName(e.Msg), seq, m.Copies.Send[ci])
		})
		return
	}
	if m.Alg == history.PK || m.Event(t).Kind != trace.Recv {
		s.fail(logReplayAt, []int32{seq}, func() (string, string) {
			return fmt.Sprintf("%s discards copy %d of %s at seq %d, which its mailbox no longer holds", s.name(e.P), e.Copy, m.MsgName(e.Msg), seq),
				fmt.Sprintf("the %s at seq %d took copy %d of %s and nothing put it back; only MS's replay log offers a copy again, once, as a receipt it logged", m.Event(t).Kind, t, e.Copy, m.MsgName(e.Msg))
		})
	}
}

// unconsumed checks an `unconsumed` record: after its process's end, of
// a copy still in that process's mailbox.
func (s *runSpec) unconsumed(seq int32, e *trace.RunEvent) {
	m := s.m
	if s.b.Ended(e.P) == history.None {
		s.malformed(seq, func() string {
			return fmt.Sprintf("unconsumed record at seq %d comes before %s's end", seq, s.name(e.P))
		})
	}
	ci := s.copyOf(e)
	switch {
	case ci < 0 && e.Copy <= 0:
		return // no copy number: nothing to check
	case ci < 0:
		s.fail(equivalenceAt, []int32{seq}, func() (string, string) {
			return fmt.Sprintf("%s lists copy %d of %s unconsumed, but it was never sent", s.name(e.P), e.Copy, m.MsgName(e.Msg)),
				fmt.Sprintf("the unconsumed record at seq %d names copy %d of %s, and the run shows no such transmission", seq, e.Copy, m.MsgName(e.Msg))
		})
		return
	case s.b.MayHold(ci) && m.CopyTo(ci) == e.P:
		return
	}
	s.fail(equivalenceAt, []int32{seq}, func() (string, string) {
		where := fmt.Sprintf("it was taken at seq %d and not put back", s.b.TakenBy(ci))
		switch t := s.b.TakenBy(ci); {
		case m.Copies.Send[ci] == history.None:
			where = "it was never sent"
		case m.CopyTo(ci) != e.P:
			where = fmt.Sprintf("it was sent to %s", s.name(m.CopyTo(ci)))
		case t != history.None && m.Event(t).Kind == trace.Unconsumed:
			where = fmt.Sprintf("the record at seq %d listed it already", t)
		}
		return fmt.Sprintf("%s lists copy %d of %s unconsumed, but its mailbox does not hold it", s.name(e.P), e.Copy, m.MsgName(e.Msg)),
			fmt.Sprintf("the unconsumed record at seq %d says copy %d of %s is still in %s's mailbox, but %s", seq, e.Copy, m.MsgName(e.Msg), s.name(e.P), where)
	})
}

// mailboxesListed reports copies still in a mailbox that no `unconsumed`
// record lists (SPEC §3), for the algorithms whose mailbox the model
// knows exactly: MS and PK.
func (s *runSpec) mailboxesListed() {
	m := s.m
	if !m.Alg.Recovers() || s.ended == history.None {
		return
	}
	for ci := range int32(s.b.Copies()) {
		if !s.b.InMailbox(ci) || m.CopyTo(ci) == history.None {
			continue
		}
		send, to := m.Copies.Send[ci], m.CopyTo(ci)
		s.fail(logReplayAt, []int32{send}, func() (string, string) {
			e := m.Event(send)
			return fmt.Sprintf("copy %d of %s is left in %s's mailbox, but no unconsumed record lists it", e.Copy, m.MsgName(e.Msg), s.name(to)),
				fmt.Sprintf("copy %d of %s was sent at seq %d and no receive or discard took it (or a rollback put it back), so it is still in %s's mailbox at the end, where the run must list it as unconsumed",
					e.Copy, m.MsgName(e.Msg), send, s.name(to))
		})
	}
}

// resendLive checks that a resend repeats a send of its process's live
// history: one that is not live repeats a message the sender's state no
// longer holds (orphan-free).
func (s *runSpec) resendLive(seq int32, e *trace.RunEvent) {
	if s.copyOf(e) < 0 || e.Op == history.None || s.b.ResendOf(e.P, e.Op, e.Msg) != history.None {
		return
	}
	s.fail(orphanFreeAt, []int32{seq}, func() (string, string) {
		return fmt.Sprintf("%s resends %s at seq %d but its send is not live", s.name(e.P), s.m.MsgName(e.Msg), seq),
			fmt.Sprintf("a resend repeats a send of the live history, but at seq %d op %d of %s is not a live send of %s", seq, e.Op, s.name(e.P), s.m.MsgName(e.Msg))
	})
}

// resendOf checks a resend's of field, when present, against the copy
// the run shows it repeats: an earlier transmission of the live send it
// repeats (SPEC §6) — the send's own copy, as the engine writes, or an
// earlier resend of the same send (same message and piggyback).
func (s *runSpec) resendOf(seq int32, e *trace.RunEvent) {
	m := s.m
	orig := m.SendOf[seq]
	if e.Of <= 0 || orig == history.None || e.Op == history.None || s.copyOf(e) < 0 {
		return
	}
	oi := m.Copies.Index(e.Msg, e.Of)
	if e.Of < e.Copy && oi >= 0 && m.Copies.Orig[oi] == orig {
		return
	}
	s.fail(equivalenceAt, []int32{orig, seq}, func() (string, string) {
		why := fmt.Sprintf("copy %d is another send's", e.Of)
		switch {
		case e.Of == e.Copy:
			why = fmt.Sprintf("copy %d is the resend's own", e.Of)
		case oi < 0 || e.Of > e.Copy || m.Copies.Send[oi] == history.None:
			why = fmt.Sprintf("no copy %d of %s was sent before it", e.Of, m.MsgName(e.Msg))
		}
		return fmt.Sprintf("%s's resend of %s at seq %d says it repeats copy %d of %s, but the send it repeats transmitted copy %d",
				s.name(e.P), m.MsgName(e.Msg), seq, e.Of, m.MsgName(e.Msg), m.Event(orig).Copy),
			notWellFormed(fmt.Sprintf("a resend's of names the copy it repeats, a transmission of the live send it repeats — %s, which transmitted copy %d — but the resend at seq %d says of %d, and %s",
				m.Describe(orig), m.Event(orig).Copy, seq, e.Of, why))
	})
}
