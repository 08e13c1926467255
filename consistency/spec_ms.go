package consistency

import (
	"fmt"
	"strings"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// msSpec is SPEC §4, Manivannan–Singhal quasi-synchronous checkpointing
// with recovery, as a protocol spec (spec.go): the default generalisation
// of §4.2 (a vector F of the recoveries applied) or, textbook, the seed's
// scalar inc and rec_line. Per process it keeps sn, next, F (inc,
// rec_line), the stable message log, and what it owes at once: the rest
// of a reaction one event began (msOwe). Each event is judged against
// what MS does in that state. Recoveries are spec_ms_recovery.go.
type msSpec struct {
	*specFrame
	textbook bool
	procs    []msProc
	incs     []int32 // textbook, by failure index: the incarnation its restart raised (0: none yet)
}

// msRec is a recovery (o, c, r) as its failure's restart made it
// (textbook: c is the incarnation raised); c ≤ 0 before the restart.
type msRec struct{ o, c, r int32 }

// rec returns failure fi's recovery: the model's failure count and line
// (history.Failure), textbook the incarnation its restart raised.
func (s *msSpec) rec(fi int32) msRec {
	f := &s.m.Failures[fi]
	if s.textbook {
		return msRec{o: f.P, c: s.incs[fi], r: f.R}
	}
	return msRec{o: f.P, c: f.Count, r: f.R}
}

type msProc struct {
	sn, next  int32
	f         []trace.FEntry // default: the recoveries applied
	inc, line int32          // textbook
	pending   []int32        // the requests (control_recv seqs) that arrived while down
	log       []msEntry      // the stable message log, by op: entries logged before the latest restore replay
	owes      duties[msOwe]
}

// adopt makes p (textbook) take the incarnation and recovery line of
// recovery rec: at its own restart, at a request it applies, or before
// delivering a message of a higher incarnation: the one place its
// scalar state moves.
func (p *msProc) adopt(rec msRec) { p.inc, p.line = max(p.inc, rec.c), rec.r }

// msEntry is a stable log entry: its copy and its log event's seq + 1
// (0: no entry); dropped once a restore found it stale.
type msEntry struct {
	ci, seq int32
	dropped bool
}

// msOwe is what a process owes at once since the event at seq: to
// deliver a message numbered n (after a forced checkpoint), to deliver
// copy ci as op n (after logging it), to apply failure fi's recovery
// (after its request at seq n; pending: one that arrived while it was
// down, owed only if not applied by then), to send fi's request to every
// other process (sent, to n of them so far), or (textbook) to deliver
// the message whose incarnation fi's recovery adopted.
type msOwe struct {
	kind       msOweKind
	seq, fi, n int32
	ci         int32
	sent       []bool
	pending    bool
}

type msOweKind uint8

func (d *msOwe) began() (int32, string) { return d.seq, oweInstant[d.kind] }

// oweInstant says, per duty, why its steps share the instant of the
// event that began it (a run that claims SPEC §3's timing): a process
// acts on an input when it arrives (issue 28: a rollback moved later
// than its request's arrival passed).
var oweInstant = [...]string{
	oweDeliverSn:   atReceipt,
	oweDeliverCopy: atReceipt,
	oweApply:       "a process applies a Rollback request's recovery when the request arrives (one that arrived while it was down, at its restart): a process acts on a request when it arrives (SPEC §3, §4.2)",
	oweRequests:    "a restarted MS process sends its recovery's Rollback requests at its restart",
	oweAdopted:     "the textbook variant adopts a message's incarnation, by a recovery checkpoint, at the receipt that delivers it",
}

const atReceipt = "MS takes a forced checkpoint, or logs a message, at the receipt that delivers it: the receive judges a copy once it has arrived, and all three happen at that instant"

const (
	oweDeliverSn msOweKind = iota
	oweDeliverCopy
	oweApply
	oweRequests
	oweAdopted
)

func newMSSpec(f *specFrame) *msSpec {
	procs := make([]msProc, len(f.m.Run.Processes))
	return &msSpec{specFrame: f, textbook: f.m.Alg == history.Textbook, procs: procs}
}

func (s *msSpec) prepare(int32, *trace.RunEvent) {}

func (s *msSpec) step(seq int32, e *trace.RunEvent) {
	if !s.numbered(seq, e) {
		return
	}
	p := &s.procs[e.P]
	d := s.owed(seq, e, p)
	switch e.Kind {
	case trace.Send:
		s.send(seq, e, p)
	case trace.Recv:
		s.recv(seq, e, p, d)
	case trace.Checkpoint:
		s.checkpoint(seq, e, p, d)
	case trace.CheckpointSkipped:
		s.skip(seq, e, p)
	case trace.Log:
		s.logged(seq, e, p)
	case trace.Discard:
		s.discard(seq, e, p)
	case trace.Hold:
		s.hold(seq, e, p)
	case trace.Fail:
		p.owes = nil
		if s.textbook { // the incarnations its restarts raise (rec)
			s.incs = append(s.incs, make([]int32, len(s.m.Failures)-len(s.incs))...)
		}
	case trace.Restart:
		s.restart(seq, e, p)
	case trace.Rollback:
		s.rollback(seq, e, p, d)
	case trace.ControlRecv:
		s.request(seq, e, p)
	case trace.ControlSend:
		s.sendRequest(seq, e, d)
	case trace.Resume, trace.Block:
		s.divergef([]int32{seq}, "%s %ss at seq %d\n%s never holds a whole process, so its runs have no %[2]s events", s.name(e.P), e.Kind, seq, algName(s.m))
	}
}

// owed returns the duty event e fulfils, popping it once fulfilled, or
// nil (duties).
func (s *msSpec) owed(seq int32, e *trace.RunEvent, p *msProc) *msOwe {
	return p.owes.owed(s.specFrame, seq, e, s.dropApplied(p), func(d *msOwe) (bool, bool) { return s.fulfils(seq, e, d) }, func(d *msOwe) { s.unmet(e.P, d, seq) })
}

// dropApplied passes over the requests that arrived while p was down and
// that it has applied since.
func (s *msSpec) dropApplied(p *msProc) func(*msOwe) bool {
	return func(d *msOwe) bool {
		if !d.pending {
			return false
		}
		d.pending = false
		return !s.owes(p, d.fi)
	}
}

// fulfils reports whether e is a step duty d asks for, and its last: a
// delivery at the instant of its forced checkpoint or log, a request to
// each other process once. Textbook MS adopts a message's higher
// incarnation by a recovery checkpoint numbered by its rec_line, forces a
// checkpoint at that instant when the message's sn is above the line,
// then delivers it (SPEC §4): the forced checkpoint is a step of the
// adoption, whose delivery it then also owes.
func (s *msSpec) fulfils(seq int32, e *trace.RunEvent, d *msOwe) (ok, last bool) {
	switch {
	case d.kind == oweAdopted && e.Kind == trace.Checkpoint && e.CkptType == trace.CkptForced:
		return s.sameInstant(d.seq, e), false
	case d.kind == oweDeliverSn || d.kind == oweAdopted:
		ok = e.Kind == trace.Recv
	case d.kind == oweDeliverCopy:
		ok = e.Kind == trace.Recv && e.Via != trace.ViaLog && s.copyOf(e) == d.ci && e.Op == d.n
	case e.Failure != history.None && e.Failure != s.m.Failures[d.fi].Seq:
		return false, false
	case d.kind == oweApply:
		ok = e.Kind == trace.Rollback || e.Kind == trace.Checkpoint && e.CkptType == trace.CkptRecovery
	default:
		ok = e.Kind == trace.ControlSend && e.Control == trace.ControlRollback && e.Peer >= 0 && int(e.Peer) < len(d.sent)
	}
	if !ok {
		return false, false
	}
	if d.kind != oweRequests {
		return true, true
	}
	if d.sent[e.Peer] {
		s.divergef([]int32{seq}, "%s sends its Rollback request to %s twice\na restarted MS process sends its recovery's Rollback request to every other process once", s.name(e.P), s.name(e.Peer))
	}
	if !d.sent[e.Peer] && e.Peer != e.P {
		d.n++
	}
	d.sent[e.Peer] = true
	return true, int(d.n) == len(d.sent)-1
}

// unmet reports duty d of process p left unfulfilled by the event at
// seq (None: by the end of the run).
func (s *msSpec) unmet(p int32, d *msOwe, seq int32) {
	if s.diverged || s.mute {
		return
	}
	next, e, seqs := s.next(seq), s.m.Event(d.seq), []int32{d.seq, seq}
	switch d.kind {
	case oweDeliverSn:
		s.divergef(seqs, "%s's forced checkpoint %d at seq %d forces no delivery\nMS takes a forced checkpoint only right before delivering a message whose sn is above its own, numbered as that message, so %[1]s's next event after seq %[3]d is the receipt of a message with sn %[4]d, but %[5]s", s.name(p), e.Ckpt, d.seq, d.n, next)
	case oweDeliverCopy:
		s.divergef(seqs, "%s logs %s at seq %d but does not deliver it next\nMS logs a message right before delivering it, so %[1]s's next event after seq %[3]d is the receive of copy %[4]d of %[2]s as op %[5]d, but %[6]s", s.name(p), s.m.MsgName(e.Msg), d.seq, e.Copy, d.n, next)
	case oweApply:
		rec := s.rec(d.fi)
		s.divergef(seqs, "%s never applies the recovery of failure seq %d\n%[1]s received the Rollback request for %[3]s at seq %[4]d, recovery (%[5]s, %[6]d, r=%[7]d), which it had not applied; a process applies it at once, by a rollback if its sn is ≥ r, else by a recovery checkpoint numbered r, attributed to that failure, but %[8]s",
			s.name(p), s.m.Failures[d.fi].Seq, s.m.FailName(d.fi), d.seq, s.name(rec.o), rec.c, rec.r, next)
	case oweRequests:
		s.divergef(seqs, "%s's restart at seq %d sends its Rollback request to %d of the %d other processes\na restarted MS process sends the Rollback request of its recovery to every other process, so that each applies it, at once; the run shows requests for %s to %[3]d of them before %[6]s",
			s.name(p), d.seq, d.n, len(d.sent)-1, s.m.FailName(d.fi), strings.TrimPrefix(next, "its next event is "))
	default:
		s.divergef(seqs, "%s's recovery checkpoint at seq %d adopts no message\nwithout a request to apply, the textbook variant takes a recovery checkpoint only to adopt the incarnation of the message it delivers next, but %s", s.name(p), d.seq, next)
	}
}

// finish judges what the processes still owe at the end.
func (s *msSpec) finish() {
	for p := range s.procs {
		if d := s.procs[p].owes.head(s.dropApplied(&s.procs[p])); d != nil && !s.b.Down(int32(p)) {
			s.unmet(int32(p), d, history.None)
		}
	}
}

// pbOf returns the piggyback copy ci is judged by, or nil (the spec then
// mute, or the property unknown) for a piggyback without sn or a copy no
// send transmitted: orphan-free reports that, and what it carries cannot
// be judged, so the property is unknown unless it fails.
func (s *msSpec) pbOf(seq, ci int32) *trace.Piggyback {
	switch pb := s.m.PB(ci); {
	case ci < 0 || s.m.Copies.Send[ci] == history.None:
		s.res.cannotJudge(fmt.Sprintf("the %s at seq %d concerns a copy no send transmitted, so the piggyback it is judged by is unknown", s.m.Event(seq).Kind, seq))
	case pb == nil || pb.Sn == history.None:
		s.lacks(s.m.Copies.Send[ci], "a piggyback with an sn")
	default:
		return pb
	}
	return nil
}

// send judges a send's piggyback: its sender's sn and F (textbook: sn,
// inc, rec_line) at the send. MS never re-transmits.
func (s *msSpec) send(seq int32, e *trace.RunEvent, p *msProc) {
	pb := s.m.Run.PB(e)
	switch {
	case e.Resend:
		s.divergef([]int32{seq}, "%s re-transmits %s at seq %d\nMS never re-transmits: a send undone by a recovery is sent anew by the re-execution, and a receipt undone is replayed from the log or sent anew",
			s.name(e.P), s.m.MsgName(e.Msg), seq)
	case pb == nil || pb.Sn == history.None:
		s.lacks(seq, "a piggyback with an sn")
	case pb.Sn != p.sn || s.textbook && (pb.Inc != p.inc || pb.RecLine != p.line) || !s.textbook && !sameF(pb.F, p.f):
		got, want := fmt.Sprintf("sn %d, f %s", pb.Sn, fString(s.m, pb.F)), fmt.Sprintf("sn %d, f %s", p.sn, fString(s.m, p.f))
		if s.textbook {
			got, want = fmt.Sprintf("sn %d, inc %d, rec_line %d", pb.Sn, pb.Inc, pb.RecLine), fmt.Sprintf("sn %d, inc %d, rec_line %d", p.sn, p.inc, p.line)
		}
		s.divergef([]int32{seq}, "%s's send of %s at seq %d piggybacks a state it does not have\na message carries its sender's state at the send, rebuilt here from the run's checkpoints, restores and recoveries: %s, but the send at seq %[3]d carries %[5]s", s.name(e.P), s.m.MsgName(e.Msg), seq, want, got)
	}
}

// recv judges a receipt: from the network by §4.2's cases, the logging
// rule and the forced checkpoint; from the log by the replay rule.
func (s *msSpec) recv(seq int32, e *trace.RunEvent, p *msProc, d *msOwe) {
	ci := s.copyOf(e)
	pb := s.pbOf(seq, ci)
	if pb == nil {
		return
	}
	if d != nil && d.kind == oweAdopted {
		rec := s.rec(d.fi)
		if pb.Inc != rec.c || pb.RecLine != rec.r {
			s.divergef([]int32{d.seq, seq}, "%s's recovery checkpoint at seq %d adopts incarnation %d, which %s at seq %d does not carry\nwithout a request to apply, the textbook variant takes a recovery checkpoint only to adopt the incarnation of the message it delivers next, and %[4]s carries inc %[6]d and rec_line %[7]d",
				s.name(e.P), d.seq, rec.c, s.m.MsgName(e.Msg), seq, pb.Inc, pb.RecLine)
		}
		p.adopt(rec)
	}
	from := s.m.Copies.Send[ci]
	if e.Via == trace.ViaLog {
		s.replay(seq, e, p, ci, pb)
	} else if d == nil || d.kind != oweDeliverCopy {
		if s.netReceipt(seq, e, p, pb, from) {
			return
		}
	}
	if pb.Sn > p.sn {
		s.divergef([]int32{from, seq}, "%s receives %s at seq %d with no forced checkpoint before it\n%[2]s was sent at seq %[4]d with sn %[5]d, above %[1]s's latest checkpoint number %[6]d when it was received at seq %[3]d; MS takes a forced checkpoint numbered %[5]d before such a receipt, so that every receipt of M follows a checkpoint numbered ≥ M.sn, and there is none",
			s.name(e.P), s.m.MsgName(e.Msg), seq, from, pb.Sn, p.sn)
	}
}

// netReceipt judges a receipt from the network not logged first and
// reports whether a receipt case broke it: a stale or future message is
// not delivered, textbook adopts a higher incarnation first, a logged
// entry the replay rule offers is taken, a message numbered below sn is
// logged first.
func (s *msSpec) netReceipt(seq int32, e *trace.RunEvent, p *msProc, pb *trace.Piggyback, from int32) bool {
	if c := s.judge(p, pb); c != msValid {
		s.divergef([]int32{from, seq}, "%s delivers %s at seq %d, a %s message\n%[2]s, sent at seq %[5]d, is not valid at %[1]s: %[6]s",
			s.name(e.P), s.m.MsgName(e.Msg), seq, map[msCase]string{msStale: "stale", msFuture: "future"}[c], from, s.why(p, e.P, pb, c))
		return true
	}
	if s.textbook && pb.Inc > p.inc {
		s.divergef([]int32{from, seq}, "%s delivers %s at seq %d without adopting its incarnation %d\nthe textbook variant adopts the higher incarnation of a message it receives, and the recovery line %d it carries, and applies that recovery before the receipt; %[1]s's incarnation is %[6]d",
			s.name(e.P), s.m.MsgName(e.Msg), seq, pb.Inc, pb.RecLine, p.inc)
		return true
	}
	if ent, ok := s.replayable(e.P, e.Op); ok && s.m.Event(ent.seq).Msg == e.Msg {
		s.skipped(seq, e, p, ent, "took a copy from the network")
	}
	if pb.Sn < p.sn {
		s.divergef([]int32{from, seq}, "%s delivers %s at seq %d without logging it\n%[2]s was sent at seq %[4]d with sn %[5]d, below %[1]s's current checkpoint number %[6]d when it was delivered at seq %[3]d, so the logging rule demands a log entry first, and there is none",
			s.name(e.P), s.m.MsgName(e.Msg), seq, from, pb.Sn, p.sn)
	}
	return false
}

// skipped reports op e.Op passing over a log entry the replay rule
// demands: logged before the latest restore, not dropped, still valid.
func (s *msSpec) skipped(seq int32, e *trace.RunEvent, p *msProc, ent msEntry, did string) {
	if ent.dropped || s.judge(p, s.m.PB(ent.ci)) != msValid {
		return
	}
	s.divergef([]int32{ent.seq, seq}, "%s skips the logged %s at seq %d\n%[1]s logged %[2]s for op %[4]d at seq %[5]d, the entry is still valid after the restore at seq %[6]d, so the replay rule demands it, but op %[4]d %[7]s at seq %[3]d",
		s.name(e.P), s.m.MsgName(s.m.Event(ent.seq).Msg), seq, e.Op, ent.seq, s.b.LastRestore(e.P), did)
}

// replayable returns process pid's log entry for op k if it was logged
// before the latest restore: one the replay rule may offer, unless the
// restore dropped it as stale.
func (s *msSpec) replayable(pid, k int32) (msEntry, bool) {
	p, restored := &s.procs[pid], s.b.LastRestore(pid)
	if k < 0 || int(k) >= len(p.log) || p.log[k].seq == 0 || p.log[k].seq-1 > restored || restored == history.None {
		return msEntry{}, false
	}
	ent := p.log[k]
	ent.seq--
	return ent, true
}

// replay judges a receive via the log: it takes the entry logged for its
// op before the latest restore, still valid.
func (s *msSpec) replay(seq int32, e *trace.RunEvent, p *msProc, ci int32, pb *trace.Piggyback) {
	switch ent, ok := s.replayable(e.P, e.Op); {
	case !ok || ent.ci != ci:
		s.divergef([]int32{seq}, "%s replays %s at seq %d without a log entry\na receive via log must take the entry %[1]s logged for op %[4]d before its restore at seq %[5]d, and there is none",
			s.name(e.P), s.m.MsgName(e.Msg), seq, e.Op, s.b.LastRestore(e.P))
	case ent.dropped || s.judge(p, pb) != msValid:
		s.divergef([]int32{seq, ent.seq}, "%s replays stale %s at seq %d\nthe replay rule replays only entries still valid for the recoveries applied, but the entry of %[2]s logged at seq %[4]d is stale: %[5]s",
			s.name(e.P), s.m.MsgName(e.Msg), seq, ent.seq, s.why(p, e.P, pb, msStale))
	}
}

// logged judges a log event by the logging rule (valid and M.sn < sn);
// the delivery it logs is owed at once.
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
		s.divergef([]int32{seq, s.m.Copies.Send[ci]}, "%s logs %s at seq %d against the logging rule\nMS logs a message iff it is valid and M.sn < sn; %[1]s logged copy %[4]d of %[2]s (sent at seq %[5]d) at seq %[3]d, but %[6]s", s.name(e.P), s.m.MsgName(e.Msg), seq, e.Copy, s.m.Copies.Send[ci], why)
	}
	if old, ok := s.replayable(e.P, e.Op); ok && old.ci != ci {
		s.skipped(seq, e, p, old, "took another copy and logged it anew")
	}
	if p.log == nil {
		p.log = make([]msEntry, 0, s.m.ProgLen(e.P)) // one allocation with the source trace
	}
	for int32(len(p.log)) <= e.Op {
		p.log = append(p.log, msEntry{})
	}
	p.log[e.Op] = msEntry{ci: ci, seq: seq + 1}
	p.owes = append(p.owes, msOwe{kind: oweDeliverCopy, seq: seq, n: e.Op, ci: ci})
}

// discard judges a discard: MS discards only stale copies, naming a
// failure whose recovery makes them stale; one its replay log offered
// (the entry of the receive it re-executes) leaves the log.
func (s *msSpec) discard(seq int32, e *trace.RunEvent, p *msProc) {
	if e.Reason != trace.ReasonStale {
		s.divergef([]int32{seq}, "%s discards copy %d of %s at seq %d as %s\nMS discards a copy only when it is stale (its send undone by a recovery its sender had not applied); it has no %[5]s discards",
			s.name(e.P), e.Copy, s.m.MsgName(e.Msg), seq, e.Reason)
		return
	}
	ci := s.copyOf(e)
	var pb *trace.Piggyback
	if ci >= 0 {
		pb = s.pbOf(seq, ci)
	}
	if pb == nil {
		return
	}
	names, why := "", ""
	switch c := s.judge(p, pb); {
	case c == msFuture:
		why = fmt.Sprintf("copy %d of %s is not stale: %s", e.Copy, s.m.MsgName(e.Msg), s.why(p, e.P, pb, c))
	case c == msValid:
		why = fmt.Sprintf("copy %d of %s, sent at seq %d with sn %d and f %s, is valid for the recoveries %s has applied, %s, so MS delivers it",
			e.Copy, s.m.MsgName(e.Msg), s.m.Copies.Send[ci], pb.Sn, fString(s.m, pb.F), s.name(e.P), fString(s.m, p.f))
	case e.Failure != history.None:
		if w := s.staleFor(p, e.P, pb, e.Failure); w != "" {
			names = fmt.Sprintf(" and names failure seq %d", e.Failure)
			why = fmt.Sprintf("a stale discard names the failure whose recovery makes the copy stale, but %s; what does: %s", w, s.why(p, e.P, pb, msStale))
		}
	}
	s.badDiscard(seq, ci, e, names, why)
	k := s.liveCount(e.P)
	if ent, ok := s.replayable(e.P, k); ok && ent.ci == ci {
		if ent.dropped {
			s.divergef([]int32{ent.seq, seq}, "%s's replay offers the stale logged %s at seq %d\n%[1]s logged copy %[4]d of %[2]s at seq %[5]d, and the entry was stale at its restore at seq %[6]d, so the replay rule dropped it then: the replay log offers only entries still valid, and MS puts no undone receipt back in the mailbox",
				s.name(e.P), s.m.MsgName(e.Msg), seq, e.Copy, ent.seq, s.b.LastRestore(e.P))
		}
		p.log[k] = msEntry{}
	}
}

// msCase is what SPEC §4.2 makes of a copy at its receiver.
type msCase uint8

const (
	msValid  msCase = iota
	msFuture        // case 1: its sender applied a recovery the receiver has not
	msStale         // case 2: its send was undone by a recovery the receiver applied
)

// judge returns the case of a copy with piggyback pb at p: case 1 before
// case 2 (SPEC §4.2). Textbook: stale iff M.inc < inc and M.sn ≥
// rec_line; a higher inc is adopted before the receipt is judged.
func (s *msSpec) judge(p *msProc, pb *trace.Piggyback) msCase {
	if s.textbook {
		if pb.Inc != history.None && pb.Inc < p.inc && pb.Sn >= p.line {
			return msStale
		}
		return msValid
	}
	for _, x := range pb.F {
		if x.Count > fGet(p.f, x.P) {
			return msFuture
		}
	}
	if _, _, stale := s.staleBy(p, pb); stale {
		return msStale
	}
	return msValid
}

// staleBy returns a recovery (o, c) p applied that pb's sender had not,
// with M.sn ≥ its line r.
func (s *msSpec) staleBy(p *msProc, pb *trace.Piggyback) (o, c int32, stale bool) {
	for _, x := range p.f {
		for cnt := fGet(pb.F, x.P) + 1; cnt <= x.Count; cnt++ {
			if r := s.line(x.P, cnt); r != history.None && pb.Sn >= r {
				return x.P, cnt, true
			}
		}
	}
	return 0, 0, false
}

// line returns r of o's c-th recovery (the latest made), or None.
func (s *msSpec) line(o, c int32) int32 {
	for i := len(s.m.Failures) - 1; i >= 0; i-- {
		if f := &s.m.Failures[i]; f.P == o && f.Count == c {
			return f.R
		}
	}
	return history.None
}

// why says why a copy with piggyback pb is not valid at p.
func (s *msSpec) why(p *msProc, pid int32, pb *trace.Piggyback, c msCase) string {
	switch {
	case s.textbook:
		return fmt.Sprintf("its incarnation %d is below %s's %d and its sn %d is ≥ the recovery line %d (the textbook rule)", pb.Inc, s.name(pid), p.inc, pb.Sn, p.line)
	case c == msFuture:
		return fmt.Sprintf("it was sent by a process that had applied %s, but %s had applied only %s: a message from the future, which MS holds until the Rollback requests for those recoveries have arrived and applies them first", fString(s.m, pb.F), s.name(pid), fString(s.m, p.f))
	}
	o, cnt, _ := s.staleBy(p, pb)
	return fmt.Sprintf("its sender had not applied recovery (%s, %d) with line r=%d, and its sn %d is ≥ %[3]d, so its send was undone", s.name(o), cnt, s.line(o, cnt), pb.Sn)
}

// staleFor returns why failure seq fs does not make a copy with piggyback
// pb stale at p, or "" if it does: p applied its recovery (o, c, r), the
// sender had not, M.sn ≥ r, and no recovery before it, by origin and
// then count, does as much. Textbook: its restart raised the
// incarnation p holds, whose rec_line the stale rule judges by.
func (s *msSpec) staleFor(p *msProc, pid int32, pb *trace.Piggyback, fs int32) string {
	fi := s.recOf(fs)
	if why := s.unrecovered(fs, fi != history.None); why != "" {
		return why
	}
	rec := s.rec(fi)
	if s.textbook {
		if rec.c != p.inc {
			return fmt.Sprintf("failure seq %d raised incarnation %d, and the stale rule judges the copy by %s's incarnation %d and its rec_line %d", fs, rec.c, s.name(pid), p.inc, p.line)
		}
		return ""
	}
	name := fmt.Sprintf("recovery (%s, %d, r=%d) of failure seq %d", s.name(rec.o), rec.c, rec.r, fs)
	switch {
	case fGet(p.f, rec.o) < rec.c:
		return fmt.Sprintf("%s has not applied %s", s.name(pid), name)
	case fGet(pb.F, rec.o) >= rec.c:
		return fmt.Sprintf("the copy's sender had applied %s (its f is %s)", name, fString(s.m, pb.F))
	case pb.Sn < rec.r:
		return fmt.Sprintf("the copy's sn %d is below the line of %s, so that recovery left its send live", pb.Sn, name)
	}
	// Several recoveries may make it stale: MS names the first, by origin
	// and then count (a red team's forged failure of another passed).
	if o, c, _ := s.staleBy(p, pb); o != rec.o || c != rec.c {
		return fmt.Sprintf("MS names the first recovery that makes it stale, by origin and then count, which is (%s, %d), not %s", s.name(o), c, name)
	}
	return ""
}

// fGet returns o's count in the sparse failure-count vector f.
func fGet(f []trace.FEntry, o int32) int32 {
	for _, x := range f {
		if x.P == o {
			return x.Count
		}
	}
	return 0
}

// sameF reports whether two failure-count vectors hold the same non-zero
// entries.
func sameF(a, b []trace.FEntry) bool {
	covers := func(x, y []trace.FEntry) bool {
		for _, e := range x {
			if e.Count != 0 && fGet(y, e.P) != e.Count {
				return false
			}
		}
		return true
	}
	return covers(a, b) && covers(b, a)
}

// fString renders a failure-count vector as the run does: {P0: 1, …}.
func fString(m *history.Model, f []trace.FEntry) string {
	parts := make([]string, 0, len(f))
	for _, x := range f {
		parts = append(parts, fmt.Sprintf("%s: %d", m.ProcName(x.P), x.Count))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
