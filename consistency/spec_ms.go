package consistency

import (
	"fmt"
	"strings"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// msSpec is SPEC §4, Manivannan–Singhal quasi-synchronous checkpointing
// with recovery, as a protocol spec (spec.go): the default
// generalisation of §4.2 (vector F of applied recoveries), or with
// textbook set the seed's rules (scalar inc and rec_line). Per process it
// keeps sn, next, F (or inc and rec_line), the stable message log and
// what the process owes at once: a reaction begun by one event and
// completed by the next (msDuty). Receipts are spec_ms_receipt.go,
// checkpoints and recoveries spec_ms_recovery.go.
type msSpec struct {
	*specFrame
	textbook bool
	procs    []msProc
	// recs are the recoveries, by failure index: R = (o, c, r) as the
	// failure's restart made it (textbook: c is the new inc).
	recs []msRec
	// lines[o][c-1] is r of origin o's c-th recovery (default variant).
	lines [][]int32
	// truePB holds the sender's true state for the copies whose
	// piggyback the run forged.
	truePB map[int32]*trace.Piggyback
}

type msRec struct{ o, c, r int32 }

type msProc struct {
	sn, next  int32
	f         []trace.FEntry // default: the recoveries applied
	inc, line int32          // textbook: incarnation and recovery line
	pending   []int32        // the requests (control_recv seqs) that arrived while down
	log       []msEntry      // the stable message log, by op
	restored  int32          // seq of the latest restore: entries logged before it replay
	duties    []msDuty
}

// msEntry is a stable log entry: the copy and the log event's seq + 1
// (zero: no entry); dropped: a restore found it stale.
type msEntry struct {
	ci, seq int32
	dropped bool
}

// msDuty is what a process owes at once, begun by the event at seq.
type msDuty struct {
	kind msDutyKind
	seq  int32
	fi   int32  // dutyApply, dutyRequests, dutyAdopted: the failure
	n    int32  // dutyDeliverSn: the sn; dutyDeliverCopy: the op; dutyApply: the request's control_recv
	ci   int32  // dutyDeliverCopy: the copy
	sent []bool // dutyRequests: the processes sent to
	// pending: a request that arrived while the process was down, owed
	// only if not applied by the time it is reached.
	pending bool
	late    bool // not done at once: reported
}

type msDutyKind uint8

const (
	dutyDeliverSn   msDutyKind = iota // deliver a message numbered n (after a forced checkpoint)
	dutyDeliverCopy                   // deliver copy ci as op n (after logging it)
	dutyApply                         // apply failure fi's recovery (a request's)
	dutyRequests                      // send fi's Rollback request to every other process
	dutyAdopted                       // textbook: deliver the message whose recovery fi was adopted
)

func newMSSpec(f *specFrame) *msSpec {
	s := &msSpec{specFrame: f, textbook: f.m.Alg == history.Textbook, procs: make([]msProc, len(f.m.Run.Processes))}
	for p := range s.procs {
		s.procs[p].restored = history.None
	}
	return s
}

func (s *msSpec) prepare(int32, *trace.RunEvent) {}

func (s *msSpec) step(seq int32, e *trace.RunEvent) {
	if s.mute || e.P < 0 || int(e.P) >= len(s.procs) || !s.numbered(seq, e) {
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
	case trace.Fail:
		p.duties = nil
	case trace.Restart:
		s.restart(seq, e, p)
	case trace.Rollback:
		s.rollback(seq, e, p, d)
	case trace.ControlRecv:
		s.request(seq, e, p)
	case trace.ControlSend:
		s.sendRequest(seq, e, d)
	case trace.Resume, trace.Block:
		s.diverge([]int32{seq}, fmt.Sprintf("%s %ss at seq %d", s.name(e.P), e.Kind, seq),
			fmt.Sprintf("%s never holds a whole process, so its runs have no %s events", algName(s.m), e.Kind))
	}
}

// owed returns the duty event e fulfils, popping it, or nil; an event
// that leaves the duty unfulfilled is a divergence, reported once (the
// duty may still be done, late) and only in a run that claims SPEC §3's
// timing: in another, other events may come between.
func (s *msSpec) owed(seq int32, e *trace.RunEvent, p *msProc) *msDuty {
	d := s.head(p)
	if d == nil || e.Kind == trace.Unhold {
		return nil
	}
	if !s.fulfils(d, e) {
		if s.instants && !d.late {
			s.unmet(e.P, d, seq)
			d.late = true
		}
		return nil
	}
	if (d.kind == dutyDeliverSn || d.kind == dutyDeliverCopy) && !s.sameInstant(d.seq, e) {
		s.diverge([]int32{d.seq, seq}, fmt.Sprintf("%s comes at t=%s, not at the instant of %s", s.ev(seq), e.T, s.ev(d.seq)),
			"MS takes a forced checkpoint, or logs a message, at the receipt that delivers it: the receive judges a copy once it has arrived, and all three happen at that instant")
	}
	out := *d
	if d.kind == dutyRequests {
		if d.sent[e.Peer] {
			s.diverge([]int32{seq}, fmt.Sprintf("%s sends its Rollback request to %s twice", s.name(e.P), s.name(e.Peer)),
				"a restarted MS process sends its recovery's Rollback request to every other process once")
		}
		d.sent[e.Peer] = true
		if sentTo(d.sent, e.P) < len(d.sent)-1 {
			return &out
		}
	}
	p.duties = p.duties[1:]
	return &out
}

// head returns the duty p owes now, passing over the requests that
// arrived while it was down and that it has applied since.
func (s *msSpec) head(p *msProc) *msDuty {
	for len(p.duties) > 0 {
		d := &p.duties[0]
		if !d.pending {
			return d
		}
		if d.pending = false; s.owes(p, d.fi, d.n) {
			return d
		}
		p.duties = p.duties[1:]
	}
	return nil
}

// fulfils reports whether e is the step duty d asks for.
func (s *msSpec) fulfils(d *msDuty, e *trace.RunEvent) bool {
	switch d.kind {
	case dutyDeliverSn, dutyAdopted:
		return e.Kind == trace.Recv
	case dutyDeliverCopy:
		return e.Kind == trace.Recv && e.Via != trace.ViaLog && s.copyOf(e) == d.ci && e.Op == d.n
	}
	if e.Failure != history.None && e.Failure != s.m.Failures[d.fi].Seq {
		return false
	}
	if d.kind == dutyApply {
		return e.Kind == trace.Rollback || e.Kind == trace.Checkpoint && e.CkptType == trace.CkptRecovery
	}
	return e.Kind == trace.ControlSend && e.Control == trace.ControlRollback && e.Peer >= 0 && int(e.Peer) < len(d.sent)
}

// unmet reports duty d of process p left unfulfilled by the event at
// seq (None: by the end of the run).
func (s *msSpec) unmet(p int32, d *msDuty, seq int32) {
	next := "it has no further event"
	if seq != history.None {
		next = "its next event is " + s.m.Describe(seq)
		if !s.m.Event(seq).Kind.IsOp() {
			next = "its next event is " + s.ev(seq)
		}
	}
	seqs := []int32{d.seq, seq}
	switch d.kind {
	case dutyDeliverSn:
		s.diverge(seqs, fmt.Sprintf("%s's forced checkpoint %d at seq %d forces no delivery", s.name(p), s.m.Event(d.seq).Ckpt, d.seq),
			fmt.Sprintf("MS takes a forced checkpoint only right before delivering a message whose sn is above its own, numbered as that message, so %s's next event after seq %d is the receipt of a message with sn %d, but %s",
				s.name(p), d.seq, d.n, next))
	case dutyDeliverCopy:
		e := s.m.Event(d.seq)
		s.diverge(seqs, fmt.Sprintf("%s logs %s at seq %d but does not deliver it next", s.name(p), s.m.MsgName(e.Msg), d.seq),
			fmt.Sprintf("MS logs a message right before delivering it, so %s's next event after seq %d is the receive of copy %d of %s as op %d, but %s",
				s.name(p), d.seq, e.Copy, s.m.MsgName(e.Msg), d.n, next))
	case dutyApply:
		rec := s.recs[d.fi]
		s.diverge(seqs, fmt.Sprintf("%s never applies the recovery of failure seq %d", s.name(p), s.m.Failures[d.fi].Seq),
			fmt.Sprintf("%s received the Rollback request for %s at seq %d, recovery (%s, %d, r=%d), which it had not applied; a process applies it at once, by a rollback if its sn is ≥ r, else by a recovery checkpoint numbered r, attributed to that failure, but %s",
				s.name(p), s.m.FailName(d.fi), d.seq, s.name(rec.o), rec.c, rec.r, next))
	case dutyRequests:
		n := sentTo(d.sent, -1)
		s.diverge(seqs, fmt.Sprintf("%s's restart at seq %d sends its Rollback request to %d of the %d other processes", s.name(p), d.seq, n, len(d.sent)-1),
			fmt.Sprintf("a restarted MS process sends the Rollback request of its recovery to every other process, so that each applies it, at once; the run shows requests for %s to %d of them before %s",
				s.m.FailName(d.fi), n, strings.TrimPrefix(next, "its next event is ")))
	case dutyAdopted:
		s.diverge(seqs, fmt.Sprintf("%s's recovery checkpoint at seq %d adopts no message", s.name(p), d.seq),
			fmt.Sprintf("without a request to apply, the textbook variant takes a recovery checkpoint only to adopt the incarnation of the message it delivers next, but %s", next))
	}
}

// finish judges what the processes still owe at the end.
func (s *msSpec) finish() {
	for p := range s.procs {
		if d := s.head(&s.procs[p]); d != nil && !d.late && !s.b.Down(int32(p)) {
			s.unmet(int32(p), d, history.None)
		}
	}
}

// sentTo counts the processes sent to, self (if sent to) aside.
func sentTo(sent []bool, self int32) int {
	n := 0
	for q, x := range sent {
		if x && int32(q) != self {
			n++
		}
	}
	return n
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

// line returns r of o's c-th recovery, or None.
func (s *msSpec) line(o, c int32) int32 {
	if o < 0 || int(o) >= len(s.lines) || c < 1 || int(c) > len(s.lines[o]) {
		return history.None
	}
	return s.lines[o][c-1]
}

// why says why a copy with piggyback pb is not valid at p.
func (s *msSpec) why(p *msProc, pid int32, pb *trace.Piggyback, c msCase) string {
	switch {
	case s.textbook:
		return fmt.Sprintf("its incarnation %d is below %s's %d and its sn %d is ≥ the recovery line %d (the textbook rule)", pb.Inc, s.name(pid), p.inc, pb.Sn, p.line)
	case c == msFuture:
		return fmt.Sprintf("it was sent by a process that had applied %s, but %s had applied only %s: a message from the future, which MS holds until the Rollback requests for those recoveries have arrived and applies them first",
			fString(s.m, pb.F), s.name(pid), fString(s.m, p.f))
	}
	o, cnt, _ := s.staleBy(p, pb)
	r := s.line(o, cnt)
	return fmt.Sprintf("its sender had not applied recovery (%s, %d) with line r=%d, and its sn %d is ≥ %d, so its send was undone", s.name(o), cnt, r, pb.Sn, r)
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

// fSet raises o's count in the sparse, sorted vector f to cnt.
func fSet(f []trace.FEntry, o, cnt int32) []trace.FEntry {
	for k := range f {
		if f[k].P == o {
			f[k].Count = max(f[k].Count, cnt)
			return f
		}
	}
	f = append(f, trace.FEntry{P: o, Count: cnt})
	for k := len(f) - 1; k > 0 && f[k].P < f[k-1].P; k-- {
		f[k], f[k-1] = f[k-1], f[k]
	}
	return f
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
