package consistency

import (
	"fmt"
	"strings"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// MS's sends and receipts (SPEC §4.1, §4.2): piggybacks, the three
// receipt cases, forced checkpoints, the logging and replay rules.

// pbOf returns the piggyback copy ci is judged by — its sender's true
// state where the run forged it — or nil (the spec then mute or the
// property unknown) for a copy never sent or a piggyback without sn.
func (s *msSpec) pbOf(seq, ci int32) *trace.Piggyback {
	if pb, ok := s.truePB[ci]; ok {
		return pb
	}
	if seq == history.None {
		return s.m.PB(ci)
	}
	if s.m.Copies.Send[ci] == history.None {
		s.unsent(seq)
		return nil
	}
	pb := s.m.PB(ci)
	if pb == nil || pb.Sn == history.None {
		s.lacks(s.m.Copies.Send[ci], "a piggyback with an sn")
		return nil
	}
	return pb
}

// send judges a send's piggyback: the sender's sn and F (textbook: sn,
// inc, rec_line) as they are at the send. A forged one is recorded: its
// receivers judge the copy by the sender's true state.
func (s *msSpec) send(seq int32, e *trace.RunEvent, p *msProc) {
	if e.Resend {
		s.diverge([]int32{seq}, fmt.Sprintf("%s re-transmits %s at seq %d", s.name(e.P), s.m.MsgName(e.Msg), seq),
			"MS never re-transmits: a send undone by a recovery is sent anew by the re-execution, and a receipt undone is replayed from the log or sent anew")
		return
	}
	pb := s.m.Run.PB(e)
	if pb == nil || pb.Sn == history.None {
		s.lacks(seq, "a piggyback with an sn")
		return
	}
	var diffs []string
	if pb.Sn != p.sn {
		diffs = append(diffs, fmt.Sprintf("sn %d, but %s's latest checkpoint is numbered %d", pb.Sn, s.name(e.P), p.sn))
	}
	switch {
	case s.textbook && (pb.Inc != p.inc || pb.RecLine != p.line):
		diffs = append(diffs, fmt.Sprintf("inc %d and rec_line %d, but %s's are %d and %d", pb.Inc, pb.RecLine, s.name(e.P), p.inc, p.line))
	case !s.textbook && !sameF(pb.F, p.f):
		diffs = append(diffs, fmt.Sprintf("f %s, but %s has applied %s", fString(s.m, pb.F), s.name(e.P), fString(s.m, p.f)))
	}
	if len(diffs) == 0 {
		return
	}
	if ci := s.copyOf(e); ci >= 0 {
		t := &trace.Piggyback{Sn: p.sn, Inc: history.None, RecLine: history.None, F: append([]trace.FEntry(nil), p.f...)}
		if s.textbook {
			t.Inc, t.RecLine, t.F = p.inc, p.line, nil
		}
		if s.truePB == nil {
			s.truePB = map[int32]*trace.Piggyback{}
		}
		s.truePB[ci] = t
	}
	s.diverge([]int32{seq}, fmt.Sprintf("%s's send of %s at seq %d piggybacks a state it does not have", s.name(e.P), s.m.MsgName(e.Msg), seq),
		fmt.Sprintf("a message carries its sender's state at the send, rebuilt here from the run's checkpoints, restores and recoveries; the send at seq %d carries %s",
			seq, strings.Join(diffs, ", and ")))
}

// recv judges a receipt: from the network by the receipt cases, the
// forced checkpoint and the logging rule; from the log by the replay rule.
func (s *msSpec) recv(seq int32, e *trace.RunEvent, p *msProc, d *msDuty) {
	ci := s.copyOf(e)
	if ci < 0 {
		s.unsent(seq) // a copy never sent: orphan-free's
		return
	}
	pb := s.pbOf(seq, ci)
	if pb == nil {
		return
	}
	if d != nil && d.kind == dutyAdopted {
		s.adoptedBy(seq, e, p, d, pb)
	}
	from := s.m.Copies.Send[ci]
	if e.Via == trace.ViaLog {
		s.replay(seq, e, p, ci, pb)
	} else if s.netReceipt(seq, e, p, pb, d) {
		return
	}
	if pb.Sn > p.sn {
		s.diverge([]int32{from, seq}, fmt.Sprintf("%s receives %s at seq %d with no forced checkpoint before it", s.name(e.P), s.m.MsgName(e.Msg), seq),
			fmt.Sprintf("%s was sent at seq %d with sn %d, above %s's latest checkpoint number %d when it was received at seq %d; MS takes a forced checkpoint numbered %d before such a receipt, so that every receipt of M follows a checkpoint numbered ≥ M.sn, and there is none",
				s.m.MsgName(e.Msg), from, pb.Sn, s.name(e.P), p.sn, seq, pb.Sn))
	}
}

// netReceipt judges a receipt from the network (its log judged it, if
// it logged it first) and reports whether a receipt case broke it.
func (s *msSpec) netReceipt(seq int32, e *trace.RunEvent, p *msProc, pb *trace.Piggyback, d *msDuty) bool {
	if d != nil && d.kind == dutyDeliverCopy {
		return false
	}
	from := s.m.Copies.Send[s.copyOf(e)]
	if c := s.judge(p, pb); c != msValid {
		what := map[msCase]string{msStale: "stale", msFuture: "future"}[c]
		s.diverge([]int32{from, seq}, fmt.Sprintf("%s delivers %s at seq %d, a %s message", s.name(e.P), s.m.MsgName(e.Msg), seq, what),
			fmt.Sprintf("%s, sent at seq %d, is not valid at %s: %s", s.m.MsgName(e.Msg), from, s.name(e.P), s.why(p, e.P, pb, c)))
		return true
	}
	if s.textbook && pb.Inc > p.inc {
		s.diverge([]int32{from, seq}, fmt.Sprintf("%s delivers %s at seq %d without adopting its incarnation %d", s.name(e.P), s.m.MsgName(e.Msg), seq, pb.Inc),
			fmt.Sprintf("the textbook variant adopts the higher incarnation of a message it receives, and the recovery line %d it carries, and applies that recovery before the receipt; %s's incarnation is %d", pb.RecLine, s.name(e.P), p.inc))
		return true
	}
	if ent, ok := s.replayable(p, e.Op); ok && s.m.Event(ent.seq).Msg == e.Msg {
		s.skipped(seq, e, p, ent, "took a copy from the network")
	}
	if pb.Sn < p.sn {
		s.diverge([]int32{from, seq}, fmt.Sprintf("%s delivers %s at seq %d without logging it", s.name(e.P), s.m.MsgName(e.Msg), seq),
			fmt.Sprintf("%s was sent at seq %d with sn %d, below %s's current checkpoint number %d when it was delivered at seq %d, so the logging rule demands a log entry first, and there is none",
				s.m.MsgName(e.Msg), from, pb.Sn, s.name(e.P), p.sn, seq))
	}
	return false
}

// skipped reports op e.Op passing over a log entry the replay rule
// demands: logged before the latest restore, not dropped, still valid.
func (s *msSpec) skipped(seq int32, e *trace.RunEvent, p *msProc, ent msEntry, did string) {
	if ent.dropped || s.judge(p, s.pbOf(history.None, ent.ci)) != msValid {
		return
	}
	s.diverge([]int32{ent.seq, seq}, fmt.Sprintf("%s skips the logged %s at seq %d", s.name(e.P), s.m.MsgName(e.Msg), seq),
		fmt.Sprintf("%s logged %s for op %d at seq %d, the entry is still valid after the restore at seq %d, so the replay rule demands it, but op %d %s at seq %d",
			s.name(e.P), s.m.MsgName(s.m.Event(ent.seq).Msg), e.Op, ent.seq, p.restored, e.Op, did, seq))
}

// replayable returns p's log entry for op k if it was logged before the
// latest restore: one the replay rule may offer, unless the restore
// dropped it as stale.
func (s *msSpec) replayable(p *msProc, k int32) (msEntry, bool) {
	if k < 0 || int(k) >= len(p.log) || p.log[k].seq == 0 || p.log[k].seq-1 > p.restored || p.restored == history.None {
		return msEntry{}, false
	}
	ent := p.log[k]
	ent.seq--
	return ent, true
}

// dropStale marks the entries at or after pos that are no longer valid
// dropped: after a restore the replay rule offers only the valid ones.
func (s *msSpec) dropStale(p *msProc, pos int32) {
	for k := max(pos, 0); int(k) < len(p.log); k++ {
		if ent := &p.log[k]; ent.seq != 0 && s.judge(p, s.pbOf(history.None, ent.ci)) == msStale {
			ent.dropped = true
		}
	}
}

// replay judges a receive via the log: it takes the entry logged for its
// op before the latest restore, still valid under the replay rule.
func (s *msSpec) replay(seq int32, e *trace.RunEvent, p *msProc, ci int32, pb *trace.Piggyback) {
	switch ent, ok := s.replayable(p, e.Op); {
	case !ok || ent.ci != ci:
		s.diverge([]int32{seq}, fmt.Sprintf("%s replays %s at seq %d without a log entry", s.name(e.P), s.m.MsgName(e.Msg), seq),
			fmt.Sprintf("a receive via log must take the entry %s logged for op %d before its restore at seq %d, and there is none", s.name(e.P), e.Op, p.restored))
	case ent.dropped || s.judge(p, pb) != msValid:
		s.diverge([]int32{seq, ent.seq}, fmt.Sprintf("%s replays stale %s at seq %d", s.name(e.P), s.m.MsgName(e.Msg), seq),
			fmt.Sprintf("the replay rule replays only entries still valid for the recoveries applied, but the entry of %s logged at seq %d is stale: %s",
				s.m.MsgName(e.Msg), ent.seq, s.why(p, e.P, pb, msStale)))
	}
}

// logged judges a log event by the logging rule (valid and M.sn < sn);
// the delivery it logs must follow at once.
func (s *msSpec) logged(seq int32, e *trace.RunEvent, p *msProc) {
	ci := s.copyOf(e)
	if ci < 0 || e.Op < 0 || int(e.Op) > len(s.m.Run.Events) {
		return
	}
	pb := s.pbOf(seq, ci)
	if pb == nil {
		return
	}
	if c := s.judge(p, pb); c != msValid || pb.Sn >= p.sn {
		why := fmt.Sprintf("its piggybacked sn %d is not below %s's current checkpoint number %d", pb.Sn, s.name(e.P), p.sn)
		if c != msValid {
			why = "it is " + map[msCase]string{msStale: "stale", msFuture: "from the future"}[c] + ": " + s.why(p, e.P, pb, c)
		}
		s.diverge([]int32{seq, s.m.Copies.Send[ci]}, fmt.Sprintf("%s logs %s at seq %d against the logging rule", s.name(e.P), s.m.MsgName(e.Msg), seq),
			fmt.Sprintf("MS logs a message iff it is valid and M.sn < sn; %s logged copy %d of %s (sent at seq %d) at seq %d, but %s",
				s.name(e.P), e.Copy, s.m.MsgName(e.Msg), s.m.Copies.Send[ci], seq, why))
	}
	if old, ok := s.replayable(p, e.Op); ok && old.ci != ci {
		s.skipped(seq, e, p, old, "took another copy and logged it anew")
	}
	if p.log == nil {
		p.log = make([]msEntry, 0, s.b.ProgLen(e.P)) // one allocation with the source trace
	}
	for int32(len(p.log)) <= e.Op {
		p.log = append(p.log, msEntry{})
	}
	p.log[e.Op] = msEntry{ci: ci, seq: seq + 1}
	p.duties = append(p.duties, msDuty{kind: dutyDeliverCopy, seq: seq, n: e.Op, ci: ci})
}

// discard judges a discard: MS discards only stale copies, naming a
// failure whose recovery makes them stale; one its replay log offered
// (the entry of the receive it re-executes) leaves the log.
func (s *msSpec) discard(seq int32, e *trace.RunEvent, p *msProc) {
	what := fmt.Sprintf("%s discards copy %d of %s at seq %d as %s", s.name(e.P), e.Copy, s.m.MsgName(e.Msg), seq, e.Reason)
	if e.Reason != trace.ReasonStale {
		s.diverge([]int32{seq}, what, fmt.Sprintf("MS discards a copy only when it is stale (its send undone by a recovery its sender had not applied); it has no %s discards", e.Reason))
		return
	}
	ci := s.copyOf(e)
	if ci < 0 {
		return
	}
	pb := s.pbOf(seq, ci)
	if pb == nil {
		return
	}
	from := s.m.Copies.Send[ci]
	switch c := s.judge(p, pb); {
	case c == msFuture:
		s.diverge([]int32{from, seq}, what, fmt.Sprintf("copy %d of %s is not stale: %s", e.Copy, s.m.MsgName(e.Msg), s.why(p, e.P, pb, c)))
	case c == msValid:
		s.diverge([]int32{from, seq}, what,
			fmt.Sprintf("copy %d of %s, sent at seq %d with sn %d and f %s, is valid for the recoveries %s has applied, %s, so MS delivers it",
				e.Copy, s.m.MsgName(e.Msg), from, pb.Sn, fString(s.m, pb.F), s.name(e.P), fString(s.m, p.f)))
	case !s.textbook && e.Failure != history.None:
		if why := s.staleFor(p, e.P, pb, e.Failure); why != "" {
			s.diverge([]int32{from, seq}, what+fmt.Sprintf(" and names failure seq %d", e.Failure),
				fmt.Sprintf("a stale discard names the failure whose recovery makes the copy stale, but %s; what does: %s", why, s.why(p, e.P, pb, msStale)))
		}
	}
	if k := s.liveCount(e.P); int(k) < len(p.log) {
		if ent, ok := s.replayable(p, k); ok && ent.ci == ci {
			if ent.dropped {
				s.diverge([]int32{ent.seq, seq}, fmt.Sprintf("%s's replay offers the stale logged %s at seq %d", s.name(e.P), s.m.MsgName(e.Msg), seq),
					fmt.Sprintf("%s logged copy %d of %s at seq %d, and the entry was stale at its restore at seq %d, so the replay rule dropped it then: the replay log offers only entries still valid, and MS puts no undone receipt back in the mailbox",
						s.name(e.P), e.Copy, s.m.MsgName(e.Msg), ent.seq, p.restored))
			}
			p.log[k] = msEntry{}
		}
	}
}

// staleFor returns why failure seq fs does not make a copy with piggyback
// pb stale at p, or "" if it does: p applied its recovery (o, c, r), the
// sender had not, and M.sn ≥ r.
func (s *msSpec) staleFor(p *msProc, pid int32, pb *trace.Piggyback, fs int32) string {
	fi, ok := s.m.FailureAt(fs)
	switch {
	case !ok:
		return fmt.Sprintf("the run has no effective fail event at seq %d", fs)
	case int(fi) >= len(s.recs) || s.recs[fi].c == 0:
		return fmt.Sprintf("failure seq %d has made no recovery yet", fs)
	}
	rec := s.recs[fi]
	name := fmt.Sprintf("recovery (%s, %d, r=%d) of failure seq %d", s.name(rec.o), rec.c, rec.r, fs)
	switch {
	case fGet(p.f, rec.o) < rec.c:
		return fmt.Sprintf("%s has not applied %s", s.name(pid), name)
	case fGet(pb.F, rec.o) >= rec.c:
		return fmt.Sprintf("the copy's sender had applied %s (its f is %s)", name, fString(s.m, pb.F))
	case pb.Sn < rec.r:
		return fmt.Sprintf("the copy's sn %d is below the line of %s, so that recovery left its send live", pb.Sn, name)
	}
	return ""
}
