package consistency

import (
	"fmt"
	"slices"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// Holds of a receive (SPEC §4.2 case 1, §5): MS holds a copy from the
// future until the Rollback requests of the recoveries its sender had
// applied arrive; PK holds a copy naming an incarnation whose
// predecessor's end the receiver has not heard announced. Nothing else
// holds a receive: a hold is judged by the protocol's own case, at the
// receive op the process is stuck at, for a copy of the held message
// still in its mailbox, and its failure must be the one whose recovery
// it waits for — else a made-up hold and an `end: held` would hide a
// lost message (issue 28). The placement protocols never hold (the run
// spec rejects theirs); an unhold releases the hold in force.

// held judges hold e at seq: some copy of its message, sent to its
// process and still in its mailbox, must be one the protocol holds
// (judge returns "" for copy k, at index ci, if it holds it, else why
// not), and the process must be at a receive of that message.
func (f *specFrame) held(seq int32, e *trace.RunEvent, rule string, judge func(ci, k int32) string) {
	why := fmt.Sprintf("no copy of %s waits in %s's mailbox", f.m.MsgName(e.Msg), f.name(e.P))
	if at := f.atRecv(e.P, e.Msg); at != "" {
		why = at
	} else {
		for k := int32(1); k <= f.b.CopyCount(e.Msg); k++ {
			ci := f.m.Copies.Index(e.Msg, k)
			if ci < 0 || f.m.CopyTo(ci) != e.P || !f.b.MayHold(ci) {
				continue
			}
			if why = judge(ci, k); why == "" || f.mute {
				return
			}
		}
	}
	naming := "naming no failure"
	if e.Failure != history.None {
		naming = fmt.Sprintf("naming failure seq %d", e.Failure)
	}
	f.divergef([]int32{seq}, "%s holds %s at seq %d, %s\n%s; but %s", f.name(e.P), f.m.MsgName(e.Msg), seq, naming, rule, why)
}

// atRecv returns why process p, at the op of its program its live count
// reaches, is at no receive of message msg, or "" (also when its
// program is unknown): only a receive of its message judges a copy, to
// deliver, discard or hold it (SPEC §3).
func (f *specFrame) atRecv(p, msg int32) string {
	live := f.liveCount(p)
	switch op, ok := f.b.ProgOp(p, live); {
	case ok && (op.Kind != trace.Recv || op.Msg != msg):
		return fmt.Sprintf("op %d of %s's program, where it is, is %s%s, not a receive of %s", live, f.name(p), op.Kind, f.m.MsgOpt(op.Msg), f.m.MsgName(msg))
	case !ok && f.m.SrcOps() != nil && int(live) >= f.m.ProgLen(p):
		return fmt.Sprintf("%s has run its whole program", f.name(p))
	}
	return ""
}

// hold judges an MS hold: a copy from the future, held for the failure
// of a recovery its sender had applied and the receiver has not, the
// next of its origin's (the request the receiver awaits first), which its
// `until` names as rollback(origin,count). The textbook variant never holds: it adopts a higher incarnation at once.
func (s *msSpec) hold(seq int32, e *trace.RunEvent, p *msProc) {
	if s.textbook {
		s.divergef([]int32{seq}, "%s holds %s at seq %d\nthe textbook variant never holds a receive: it adopts a message's higher incarnation, applies its recovery and judges the message then", s.name(e.P), s.m.MsgName(e.Msg), seq)
		return
	}
	rule := "MS holds a receive only for a message from the future (SPEC §4.2 case 1): its copy's f counts a recovery the receiver has not applied, and the hold names that recovery's failure until its Rollback request arrives"
	s.held(seq, e, rule, func(ci, k int32) string {
		pb := s.pbOf(seq, ci)
		if pb == nil {
			return ""
		}
		if c := s.judge(p, pb); c != msFuture {
			return fmt.Sprintf("copy %d, sent at seq %d with f %s, is no message from the future for %s, which has applied %s", k, s.m.Copies.Send[ci], fString(s.m, pb.F), s.name(e.P), fString(s.m, p.f))
		}
		fi := s.recOf(e.Failure)
		if why := s.unrecovered(e.Failure, fi != history.None); why != "" {
			return why
		}
		rec := s.rec(fi)
		if fGet(p.f, rec.o)+1 != rec.c || fGet(pb.F, rec.o) < rec.c {
			return fmt.Sprintf("its failure's recovery (%s, %d) is not the next of its origin's that the copy's sender applied (f %s) and %s has not (f %s)", s.name(rec.o), rec.c, fString(s.m, pb.F), s.name(e.P), fString(s.m, p.f))
		}
		// The run says what it waits for twice; redteam7 forged the words.
		if want := fmt.Sprintf("rollback(%s,%d)", s.name(rec.o), rec.c); s.m.Run.Until(e) != want {
			return fmt.Sprintf("it says until %q, but it waits for recovery (%s, %d): %q", s.m.Run.Until(e), s.name(rec.o), rec.c, want)
		}
		return ""
	})
}

// hold judges a PK hold: a copy, no orphan of an announcement the
// receiver recorded and no duplicate of its live receipt, whose vector
// names incarnation x of some process while the receiver has not
// recorded the announcement of x − 1, the failure the hold names.
func (s *pkSpec) hold(seq int32, e *trace.RunEvent, p *pkProc) {
	rule := "PK holds a receive only for a copy whose vector names an incarnation whose predecessor's end the receiver has not heard announced (SPEC §5), naming the failure that ended that predecessor"
	s.held(seq, e, rule, func(ci, k int32) string {
		vt, _, ok := s.copyVT(ci)
		switch {
		case !ok:
			return fmt.Sprintf("the vector of copy %d of %s is unknown", k, s.m.MsgName(e.Msg))
		case p.ann.orphan(vt) || s.liveRecv(e.P, e.Msg):
			return fmt.Sprintf("copy %d of %s is an orphan or a duplicate there, which PK discards", k, s.m.MsgName(e.Msg))
		}
		a := s.annOf(e.Failure)
		if why := s.unrecovered(e.Failure, a != nil); why != "" {
			return why
		}
		if int(a.Origin) >= len(vt) || vt[a.Origin].Inc != a.Inc+1 || p.ann.heard(a.Origin, a.Inc) {
			return fmt.Sprintf("failure seq %d ended %s's incarnation %d, and copy %d's vector %s does not name its successor or %s heard its announcement", e.Failure, s.name(a.Origin), a.Inc, k, vtString(vt), s.name(e.P))
		}
		return ""
	})
}

// heard reports whether the end of origin o's incarnation inc was
// announced.
func (x *annIndex) heard(o, inc int32) bool {
	i, found := slices.BinarySearch(x.origins, o)
	return found && inc >= 0 && int(inc) < len(x.by[i].have) && x.by[i].have[inc]
}

// holds follows what holds each process: a receive's hold until its
// unhold, restore or failure; a block until its resume, during which the
// process executes no op and blocks no further; a PK restart until its
// resume. A placement protocol never holds a receive: its
// receives deliver every copy, with a forced checkpoint first where its
// rule demands one.
func (s *runSpec) holds(seq int32, e *trace.RunEvent) {
	ps := &s.procs[e.P]
	if s.m.Alg.Recovers() {
		s.holdEnds(seq, e, ps)
	}
	switch e.Kind {
	case trace.Fail:
		if _, ok := s.m.FailureAt(seq); ok {
			ps.recvHold, ps.procHold = history.None, history.None
		}
	case trace.Restart:
		ps.restart, ps.recvHold = seq, history.None
		if s.m.Alg == history.PK {
			ps.procHold = seq
		}
	case trace.Rollback:
		ps.recvHold = history.None
	case trace.Unhold:
		if s.m.Alg.Recovers() || s.m.Alg.Places() {
			s.unheld(seq, e, ps.recvHold)
		}
		ps.recvHold, ps.unhold = history.None, seq
	case trace.Hold:
		if s.m.Alg.Places() {
			s.badf(logReplayAt, []int32{seq}, "%s holds %s at seq %d\n%s never holds a receive: its receives deliver every copy, with a forced checkpoint first where its rule demands one", s.name(e.P), s.m.MsgName(e.Msg), seq, algName(s.m))
		}
		ps.recvHold = seq
	case trace.Block:
		if h := s.blockedBy(e.P); h != history.None {
			s.badf(logReplayAt, []int32{h, seq}, "%s blocks at seq %d while blocked since seq %d\na block holds the whole process until its resume", s.name(e.P), seq, h)
		}
		ps.procHold = seq
	case trace.Resume:
		ps.procHold = history.None
	case trace.Send, trace.Recv, trace.Internal:
		if h := s.blockedBy(e.P); h != history.None {
			s.badf(logReplayAt, []int32{h, seq}, "%s executes op %d at seq %d while blocked since seq %d\na block holds the whole process: it executes no op until its resume", s.name(e.P), e.Op, seq, h)
		}
	}
}

// blockedBy returns the seq of the block holding process p (a block,
// not a PK restart), or None.
func (s *runSpec) blockedBy(p int32) int32 {
	if h := s.procs[p].procHold; h != history.None && s.m.Event(h).Kind == trace.Block {
		return h
	}
	return history.None
}

// unheld judges an unhold: it releases the hold in force (at seq held),
// of its message.
func (s *runSpec) unheld(seq int32, e *trace.RunEvent, held int32) {
	switch {
	case held == history.None:
		s.badf(logReplayAt, []int32{seq}, "%s's unhold of %s at seq %d releases nothing\nno hold of a receive is in force at %[1]s then", s.name(e.P), s.m.MsgName(e.Msg), seq)
	case s.m.Event(held).Msg != e.Msg:
		s.badf(logReplayAt, []int32{seq, held}, "%s's unhold at seq %d releases %s, not the held %s\nthe hold in force is the one at seq %d, of %[4]s; an unhold releases it", s.name(e.P), seq, s.m.MsgName(e.Msg), s.m.MsgName(s.m.Event(held).Msg), held)
	}
}

// holdEnds judges event e at seq of process ps, in a run of MS or PK:
// the engine ends a receive's hold by writing an unhold just before what
// ends it — the receipt or discard of the receive re-tried, or a restore
// — at that event's instant and naming its failure; only a crash ends a
// hold without one (docs/replay.md). A red team deleted the unhold
// before a rollback, and the run passed. A run that does not claim SPEC
// §3's timing, a recorded one, is judged on the order and not the
// instant (a recorder writes the unhold, then the receipt a moment later
// by its system's clock).
func (s *runSpec) holdEnds(seq int32, e *trace.RunEvent, ps *runProc) {
	ends := e.Kind == trace.Recv || e.Kind == trace.Discard || e.Kind == trace.Restart || e.Kind == trace.Rollback
	const rule = "the engine writes an unhold just before the receipt or discard of the receive re-tried, or the restore, that ends a hold, at its instant and naming its failure (docs/replay.md)"
	if u := ps.unhold; u != history.None {
		ps.unhold = history.None
		if h := s.m.Event(u); !ends || !s.sameInstant(u, e) || e.Failure != h.Failure {
			s.badf(logReplayAt, []int32{u, seq}, "%s's unhold of %s at seq %d is followed by %s, not by what ended its hold\n%s", s.name(e.P), s.m.MsgName(h.Msg), u, s.ev(seq), rule)
		}
	} else if ends && ps.recvHold != history.None {
		s.badf(logReplayAt, []int32{ps.recvHold, seq}, "%s ends the hold at seq %d without an unhold\n%s", s.ev(seq), ps.recvHold, rule)
	}
}
