package consistency

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// pkSpec is SPEC §5, Peterson–Kearns rollback based on vector time, as
// the reference state machine of spec.go: per process (pkProc) and per
// copy (pkCopy), what the history model does not keep. Restarts and
// tokens are spec_pk_recovery.go.
type pkSpec struct {
	*specFrame
	procs  []pkProc
	copies []pkCopy    // by copy index
	lists  []tokenList // by failure index
	// early are the tokens (process, failure seq) that came before the
	// restart that made their announcement.
	early [][2]int32
	// recvOf[msg] is the seq of msg's latest receipt, or None (liveRecv).
	recvOf  []int32
	vectors vtKeeper
	// restarted are the processes past their first incarnation, sorted:
	// the only entries of a rebuilt vector whose incarnation is ≥ 1.
	restarted []int32
	flushes   pkFlushes
	scratch   trace.VT // want's
	unmerged  int      // the copies' vectors the clocks keep unmerged (pkClock.take)
	// sorted is failure fi's token list read from a file, sorted
	// (tokenLists).
	sorted struct {
		fi   int32
		keys []uint64 // identityKey
	}
}

// pkCopy is a copy's identity (msg and the sender's incarnation at the
// send it carries) and its vector, nil once no rule can read it
// (spec_pk_vectors.go).
type pkCopy struct {
	inc int32
	vt  trace.VT
}

// pkProc is a process; its incarnation is the model's count of its
// restarts (history.Builder.Restarts).
type pkProc struct {
	clock   pkClock
	ann     annIndex
	waiting int32   // the restart whose token it holds for, or None
	pending []int32 // tokens (control_recv seqs) recorded while down
	// ckpts are its checkpoints' rebuilt vectors, by index in Taken (nil:
	// none), kept while a restore may read them.
	ckpts []trace.VT
	// sentTo lists, by destination, its sends (not resends) live when
	// last looked at: a token hop judges its resends to the announcer
	// from it (resentAll), not by walking its whole live history at
	// every hop (quadratic in failures).
	sentTo map[int32][]pkSent
	// rsum and rn are the multiset hash (trace.IdentityHash) and size of
	// its live receipts' identities, what its token must list: kept as
	// receipts come and go, not rebuilt at each restart (quadratic).
	rsum uint64
	rn   int32
	// blind are the seqs of its live receipts of copies no send had
	// transmitted when received (no identity for its token's list), in
	// order. They are kept by seq, not counted: whether a copy is one
	// can change before the receipt is undone (its send may come later).
	blind  []int32
	duties duties[pkDuty]
	replay *pkReplay // the restart being written, while down
	target int32     // the checkpoint a rollback being taken must restore
}

// pkSent is a send at seq, of op op, transmitting copy ci of msg in
// incarnation inc: what a token hop reads of it.
type pkSent struct{ seq, op, ci, msg, inc int32 }

// pkDuty is what a process owes at once, begun by the event at seq.
type pkDuty struct {
	kind   pkDutyKind
	seq    int32
	fi     int32   // the failure whose token it is
	recv   int32   // dutyHop: the token's control_recv
	resent []int32 // the sends its hop resent
}

type pkDutyKind uint8

func (d *pkDuty) began() (int32, string) { return d.seq, dutyInstant[d.kind] }

// dutyInstant says, per duty, why its steps share the instant of the
// event that began it (a run that claims SPEC §3's timing).
var dutyInstant = [...]string{
	dutyOwnToken: "a restarted PK process sends its token to its successor at its restart",
	dutyHop:      "a process that a failure's token reaches rolls back, resends and forwards it at once, when it arrives (a process down then, at its restart)",
	dutyResume:   "a restarted PK process resumes when its token returns",
}

const (
	dutyOwnToken pkDutyKind = iota // send its own token to its successor (after its restart)
	dutyHop                        // [roll back], resend, forward a token
	dutyResume                     // resume: its token came back
)

func newPKSpec(f *specFrame, lookahead int32) *pkSpec {
	np := len(f.m.Run.Processes)
	s := &pkSpec{specFrame: f, procs: make([]pkProc, np), recvOf: slices.Repeat([]int32{history.None}, len(f.m.Run.Msgs)),
		copies: make([]pkCopy, 0, len(f.m.Run.Msgs)), vectors: newVTKeeper(f.m, lookahead)}
	zero := make(trace.VT, np) // every initial checkpoint's, never dropped
	for p := range s.procs {
		s.procs[p].waiting = history.None
		s.procs[p].ckpts = []trace.VT{zero}
	}
	if f.m.Src != nil { // a comparable source trace
		s.flushes = newPKFlushes(f.m.Src, np)
	}
	f.b.PutBack(s.putBack)
	return s
}

// prepare makes a restart's plan, or a rollback's target, from the
// checkpoints and live history the process has before the restore.
func (s *pkSpec) prepare(seq int32, e *trace.RunEvent) {
	s.flushesBefore(e.T)
	if e.Kind == trace.Log {
		s.logged(seq, e)
	}
	if s.mute {
		return
	}
	switch p := &s.procs[e.P]; {
	case e.Kind == trace.Restart && s.b.Down(e.P):
		s.plan(seq, e.P, p)
	case e.Kind == trace.Rollback:
		p.target, _ = s.latestNonOrphan(e.P, p)
	}
}

func (s *pkSpec) step(seq int32, e *trace.RunEvent) {
	if !s.numbered(seq, e) {
		return
	}
	p := &s.procs[e.P]
	if e.Kind == trace.Send && !e.Resend {
		if p.sentTo == nil {
			p.sentTo = map[int32][]pkSent{}
		}
		p.sentTo[e.Peer] = append(p.sentTo[e.Peer], pkSent{seq, e.Op, s.copyOf(e), e.Msg, s.b.Restarts(e.P)})
	}
	if s.b.Down(e.P) && e.Kind.IsOp() {
		s.replayed(seq, e, p)
		return
	}
	d := s.owed(seq, e, p)
	switch e.Kind {
	case trace.Send:
		s.send(seq, e, p, d)
	case trace.Recv:
		s.recv(seq, e, p)
	case trace.Internal:
		s.waits(seq, e, p)
	case trace.Checkpoint:
		s.checkpoint(seq, e, p)
	case trace.Discard:
		s.discard(seq, e, p)
	case trace.Hold:
		s.hold(seq, e, p)
	case trace.Fail:
		if _, ok := s.m.FailureAt(seq); ok { // a fail of a down process is ignored
			p.waiting, p.duties = history.None, nil
		}
	case trace.Restart:
		s.restart(seq, e, p)
	case trace.Rollback:
		s.rollback(seq, e, p, d)
	case trace.ControlRecv:
		s.token(seq, e, p)
	case trace.ControlSend:
		s.forward(seq, e, p, d)
	case trace.Resume:
		s.resume(seq, e, p, d)
	case trace.Block:
		s.divergef([]int32{seq}, "%s blocks at seq %d\nPK holds a process only for its token, which a run shows from the restart to the resume; it has no block events", s.name(e.P), seq)
	}
	s.vectors.after(s, seq)
}

// want returns the vector of clock c with own entry own at pid, in the
// spec's scratch vector: valid until the next call.
func (s *pkSpec) want(c *pkClock, pid int32, own trace.VTEntry) trace.VT {
	s.scratch = c.vector(s.scratch[:0], len(s.procs))
	s.scratch[pid] = own
	return s.scratch
}

// ownAt is process pid's own entry at count in its incarnation now.
func (s *pkSpec) ownAt(pid, count int32) trace.VTEntry {
	return trace.VTEntry{Inc: s.b.Restarts(pid), Count: count}
}

// compare judges a vector the run shows (a send's or a checkpoint's)
// against clock c's with own entry own, and returns the one to keep: got
// if equal (no copy), else a clone of the rebuilt one. Only a divergence
// builds that vector.
func (s *pkSpec) compare(seq int32, e *trace.RunEvent, got trace.VT, c *pkClock, own trace.VTEntry) trace.VT {
	if c.is(got, len(s.procs), e.P, own) {
		return got
	}
	want := s.want(c, e.P, own)
	if !s.mute && !s.diverged { // the witness costs O(processes): only the first is kept
		j := vtDiff(got, want)
		holder := "send of " + s.m.MsgName(e.Msg)
		if e.Kind == trace.Checkpoint {
			holder = fmt.Sprintf("checkpoint %d", e.Ckpt)
		}
		s.divergef([]int32{seq}, "%s's %s at seq %d carries vector time %s, not %s\n%s's vector time at seq %d, rebuilt from its incarnation (%d restarts), its %d live ops and the vectors of the copies its live receipts took, is %s; its entry for %s is %s, but the run says %s",
			s.name(e.P), holder, seq, vtString(got), vtString(want), s.name(e.P), seq, s.b.Restarts(e.P), want[e.P].Count, vtString(want), s.name(int32(j)), vtEntry(want, j), vtEntry(got, j))
	}
	return slices.Clone(want)
}

// waits judges an app op of a process that holds for its token: it
// executes none until the token with its announcement returns.
func (s *pkSpec) waits(seq int32, e *trace.RunEvent, p *pkProc) bool {
	if p.waiting == history.None {
		return false
	}
	s.divergef([]int32{p.waiting, seq}, "%s executes op %d at seq %d while it waits for its token\n%s restarted at seq %d and holds, executing no op, until the token with its announcement returns; the token has not come back, yet it executes %s",
		s.name(e.P), e.Op, seq, s.name(e.P), p.waiting, s.m.Describe(seq))
	p.waiting = history.None // one witness per hold
	return true
}

// send judges a send's vector and keeps its copy's; a resend belongs to
// a token hop (spec_pk_recovery.go).
func (s *pkSpec) send(seq int32, e *trace.RunEvent, p *pkProc, d *pkDuty) {
	if e.Resend {
		s.resend(seq, e, p, d)
		return
	}
	s.waits(seq, e, p)
	p.clock.reset(s.sent(seq, e, &p.clock), &s.unmerged)
}

// sent judges the vector a send carries against clock c's, with the
// sender's own entry at the send's op, and records the copy it
// transmits; it returns the vector kept (nil: the send carries none).
func (s *pkSpec) sent(seq int32, e *trace.RunEvent, c *pkClock) trace.VT {
	vt := s.pbVT(seq, e)
	if vt == nil {
		return nil
	}
	kept := s.compare(seq, e, vt, c, s.ownAt(e.P, e.Op+1))
	if ci := s.copyOf(e); ci >= 0 {
		s.setCopy(ci, s.b.Restarts(e.P), kept)
	}
	return kept
}

// pbVT returns the vector send e at seq carries, or nil: the run lacks
// it, and the spec stops.
func (s *pkSpec) pbVT(seq int32, e *trace.RunEvent) trace.VT {
	if pb := s.m.Run.PB(e); pb != nil && pb.VT != nil {
		return pb.VT
	}
	s.lacks(seq, "a piggybacked vector time")
	return nil
}

// setCopy records copy ci's identity and vector, which no one writes.
func (s *pkSpec) setCopy(ci, inc int32, vt trace.VT) {
	for int(ci) >= len(s.copies) {
		s.copies = append(s.copies, pkCopy{inc: history.None})
	}
	s.copies[ci] = pkCopy{inc: inc, vt: vt}
}

// copyVT returns copy ci's vector and identity, or false (its send was
// never seen, or its vector was dropped).
func (s *pkSpec) copyVT(ci int32) (trace.VT, int32, bool) {
	if ci < 0 || int(ci) >= len(s.copies) || s.copies[ci].vt == nil {
		return nil, history.None, false
	}
	return s.copies[ci].vt, s.copies[ci].inc, true
}

// recv judges a delivery: the copy is no orphan of an announcement the
// receiver recorded, no duplicate of a live receipt, and names no
// incarnation the receiver has not heard the end of before it.
func (s *pkSpec) recv(seq int32, e *trace.RunEvent, p *pkProc) {
	// Live whatever is judged below, also while p waits for its token.
	ci := s.copyOf(e)
	if ci < 0 || s.m.Copies.Send[ci] == history.None {
		p.blind = append(p.blind, seq)
	} else if int(ci) < len(s.copies) {
		// Counted as liveReceipts counts.
		p.rsum += trace.IdentityHash(trace.Identity{Msg: e.Msg, Inc: s.copies[ci].inc})
		p.rn++
	}
	if s.waits(seq, e, p) {
		return
	}
	vt, _, ok := s.copyVT(ci)
	if !ok {
		return // taken before (the model's), or never sent: orphan-free's
	}
	from := s.m.Copies.Send[ci]
	why := ""
	if p.ann.orphan(vt) {
		a := p.ann.orphanBy(vt)
		why = fmt.Sprintf("its vector %s is an orphan of announcement (%s, inc %d, k %d), which %s had recorded: PK discards it", vtString(vt), s.name(a.Origin), a.Inc, a.K, s.name(e.P))
	} else if s.liveRecv(e.P, e.Msg) {
		why = fmt.Sprintf("%s's live history holds a receipt of %s from that incarnation of its sender already: PK discards it as a duplicate", s.name(e.P), s.m.MsgName(e.Msg))
	} else if k, x, ok := s.unheard(p, vt); ok {
		why = fmt.Sprintf("its vector names incarnation %d of %s while %s knows no announcement of incarnation %d: PK holds the receive until it does", x, s.name(k), s.name(e.P), x-1)
	}
	if why != "" {
		s.divergef([]int32{from, seq}, "%s delivers %s at seq %d\ncopy %d of %s, sent at seq %d, may not be delivered: %s", s.name(e.P), s.m.MsgName(e.Msg), seq, e.Copy, s.m.MsgName(e.Msg), from, why)
	}
	p.clock.take(vt, len(s.procs), &s.unmerged)
	s.recvOf[e.Msg] = seq
	s.vectors.taken(s, ci)
}

// liveRecv reports whether p's live history holds a receipt of msg. The
// sender incarnations are not compared: a live receipt of an ended
// incarnation is orphan-free's to report.
func (s *pkSpec) liveRecv(p, msg int32) bool {
	r := s.recvOf[msg]
	return r != history.None && s.m.UndoneBy[r] == history.None && s.m.Event(r).P == p
}

// checkpoint judges a checkpoint (basic, as shape.go judges): after a
// flush of every live receipt, with the rebuilt vector.
func (s *pkSpec) checkpoint(seq int32, e *trace.RunEvent, p *pkProc) {
	if e.CkptType == trace.CkptInitial {
		return
	}
	taken := s.b.Taken(e.P)
	if c := taken[len(taken)-1]; c.Unstable > 0 {
		s.divergef([]int32{seq}, "%s's checkpoint %d at seq %d leaves %d receipts off stable storage\ntaking a checkpoint first flushes the volatile message log, which the run shows as one log event per entry, but when %s took checkpoint %d at seq %d, %d of its live receipts had no log event",
			s.name(e.P), c.ID, seq, c.Unstable, s.name(e.P), c.ID, seq, c.Unstable)
	}
	own := s.ownAt(e.P, s.liveCount(e.P))
	var kept trace.VT
	switch vt := s.m.Run.VTOf(e); {
	case vt != nil:
		kept = s.compare(seq, e, vt, &p.clock, own)
	case e.VT == history.None:
		s.lacks(seq, "a checkpoint's vector time")
	}
	p.clock.reset(kept, &s.unmerged)
	if s.vectors.keep {
		for len(p.ckpts) < len(taken) {
			p.ckpts = append(p.ckpts, nil)
		}
		if kept == nil {
			kept = slices.Clone(s.want(&p.clock, e.P, own))
		}
		p.ckpts[len(taken)-1] = kept
	}
}

// discard judges a discard: of an orphan of an announcement the receiver
// recorded (naming its failure), or of a duplicate of a live receipt
// (naming none); PK has no other.
func (s *pkSpec) discard(seq int32, e *trace.RunEvent, p *pkProc) {
	ci := s.copyOf(e)
	vt, _, ok := s.copyVT(ci)
	if !ok {
		return
	}
	from, why, names := s.m.Copies.Send[ci], "", ""
	switch e.Reason {
	case trace.ReasonOrphan:
		if !p.ann.orphan(vt) {
			why = fmt.Sprintf("copy %d of %s, sent at seq %d with vector %s, is no orphan of the %d announcements %s had recorded by seq %d",
				e.Copy, s.m.MsgName(e.Msg), from, vtString(vt), len(p.ann.list), s.name(e.P), seq)
		} else if e.Failure != history.None {
			a := s.annOf(e.Failure)
			w := s.unrecovered(e.Failure, a != nil)
			switch {
			case w != "":
			case !p.ann.heard(a.Origin, a.Inc):
				w = fmt.Sprintf("%s had not recorded its announcement (%s, inc %d, k %d) by seq %d", s.name(e.P), s.name(a.Origin), a.Inc, a.K, seq)
			case !orphanOf(vt, *a):
				w = fmt.Sprintf("its announcement (%s, inc %d, k %d) does not make it one", s.name(a.Origin), a.Inc, a.K)
			}
			if w != "" {
				names = fmt.Sprintf(" and names failure seq %d", e.Failure)
				why = fmt.Sprintf("an orphan discard names the failure whose announcement makes the copy an orphan, but %s (the copy's vector is %s)", w, vtString(vt))
			}
		}
	case trace.ReasonDuplicate:
		if e.Failure != history.None {
			why = fmt.Sprintf("it names failure seq %d, but a duplicate is discarded for the receipt it repeats, not for a failure", e.Failure)
		} else if !s.liveRecv(e.P, e.Msg) {
			why = fmt.Sprintf("%s's live history holds no receipt of %s at seq %d, so the copy is no duplicate", s.name(e.P), s.m.MsgName(e.Msg), seq)
		}
	default:
		why = fmt.Sprintf("PK discards orphans of the announcements it knows and duplicates of its live receipts; it has no %s discards, and copy %d of %s is neither",
			map[bool]string{true: "unexplained", false: e.Reason.String()}[e.Reason == trace.ReasonNone], e.Copy, s.m.MsgName(e.Msg))
	}
	s.badDiscard(seq, ci, e, names, why)
	s.vectors.taken(s, ci)
}

// annOf returns the announcement the restart of failure seq fs made,
// or nil (none yet, or no failure).
func (s *pkSpec) annOf(fs int32) *history.Announcement {
	if fi, ok := s.m.FailureAt(fs); ok {
		return s.m.Failures[fi].Ann
	}
	return nil
}

// putBack answers the model which copies a rollback of p puts back in
// the mailbox: those of undone receipts that are no orphan of the
// announcements p recorded (SPEC §5).
func (s *pkSpec) putBack(pid, ci int32) (back, sure bool) {
	vt, _, ok := s.copyVT(ci)
	if !ok || s.mute {
		return false, false
	}
	return !s.procs[pid].ann.orphan(vt), true
}

// dropped makes the spec stop: a recovery reads a vector it dropped
// when the run said no recovery was ahead.
func (s *pkSpec) dropped(seq int32) {
	if !s.mute {
		s.res.cannotJudge(fmt.Sprintf("the %s at seq %d reads vectors the checker dropped when no recovery was ahead (the source trace has no failure left, or the run shows no recovery after it)", s.m.Event(seq).Kind, seq))
		s.mute = true
	}
}

// finish judges what the processes still owe at the end, and reports
// the forged token lists.
func (s *pkSpec) finish() {
	s.flushesBefore(trace.MaxTime + 1)
	s.reportLists()
	for p := range s.procs {
		pr := &s.procs[p]
		if d := pr.duties.head(nil); d != nil && !s.b.Down(int32(p)) {
			s.unmet(int32(p), d, history.None)
		}
	}
}

// vtDiff returns the first entry where two unequal vectors differ (an
// entry one has and the other lacks counts).
func vtDiff(got, want trace.VT) int {
	j := 0
	for j < len(got) && j < len(want) && got[j] == want[j] {
		j++
	}
	return j
}

func vtEntry(vt trace.VT, j int) string {
	if j >= len(vt) {
		return "no entry"
	}
	return fmt.Sprintf("(%d, %d)", vt[j].Inc, vt[j].Count)
}

func vtString(vt trace.VT) string {
	var b strings.Builder
	b.WriteByte('[')
	for j, x := range vt {
		if j > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "(%d,%d)", x.Inc, x.Count)
	}
	b.WriteByte(']')
	return b.String()
}
