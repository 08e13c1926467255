package pk

import (
	"fmt"
	"sort"

	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// op is one program operation of a process, as PK's restart replay needs
// it: only receives consult the log.
type op struct {
	kind trace.Kind
	msg  int32
}

// ckpt is a checkpoint on stable storage.
type ckpt struct {
	id  int32
	pos int32
	vt  trace.VT
}

// receipt is a live receipt of a process. The live receipts are also the
// message log: receipts[:stable] is the stable log, the rest the volatile
// log. They coincide because every delivered copy is logged, a failure
// loses the volatile tail, and restarts and rollbacks truncate both at the
// same position (SPEC §5).
type receipt struct {
	op   int32
	msg  int32
	from int32
	copy replay.CopyID
	// pb is the copy's piggyback vector, shared with the engine's copy
	// (immutable), so a receipt costs no vector allocation.
	pb trace.VT
}

// inc is the identity incarnation of the received copy: its sender's
// incarnation at send.
func (r *receipt) inc() int32 { return r.pb[r.from].Inc }

// sent is a live send of a process; resends for tokens repeat it.
type sent struct {
	op   int32
	msg  int32
	to   int32
	copy replay.CopyID
	inc  int32
}

// proc is PK's state at one process. Stable: inc, known, ckpts,
// receipts[:stable]. Volatile: everything else.
type proc struct {
	inc   int32
	vt    trace.VT
	known *Known
	ckpts []ckpt
	// nextID numbers checkpoints; ids are never reused, also across
	// rollbacks, so a run names each checkpoint once.
	nextID   int32
	receipts []receipt
	stable   int
	sends    []sent
	// crashPos is the position the process had when it last failed: ops
	// from it on that a restart replays run for the first time.
	crashPos int32
	// stash holds the piggybacks of the sends a restart runs for the
	// first time; the engine asks for them (InSend) while it applies
	// EffRestart, after the replay already advanced the clock.
	stash []stashed
	// held is set from a restart until the newest own token returns.
	held bool
}

type stashed struct {
	op int32
	pb trace.VT
}

// PK is the Peterson–Kearns algorithm for one trace: the state of every
// process. It implements replay.Algorithm.
type PK struct {
	variant string
	names   []string
	n       int32
	procs   []proc
	prog    [][]op
	// liveInc[m] is the sender incarnation of the live receipt of message
	// m (each message has one receiver), or None: the duplicate test.
	liveInc []int32
	// failSeq[p][inc] is the seq of the fail event that ended incarnation
	// inc of p, used only to attribute discards, holds and rollbacks.
	failSeq [][]int32
	slab    slab
}

// Variant names accepted by New. Only Default is PK; the others are
// deliberately broken stand-ins for buggy implementations, for testing the
// consistency checker (SPEC §7).
const (
	Default   = ""
	NoToken   = "no-token"   // test-only mutant: a restart tells nobody
	NoResend  = "no-resend"  // test-only mutant: tokens trigger no resends
	NoRequeue = "no-requeue" // test-only mutant: a rollback drops the copies it undoes
)

// New returns the PK state machine for tr with the given variant.
func New(variant string, tr *trace.Trace) (*PK, error) {
	n := int32(len(tr.Processes))
	a := &PK{
		variant: variant,
		names:   tr.Processes,
		n:       n,
		procs:   make([]proc, n),
		prog:    make([][]op, n),
		liveInc: make([]int32, len(tr.Msgs)),
		failSeq: make([][]int32, n),
	}
	// Most clones are one per trace event (a checkpoint's vector or a
	// send's piggyback), so the event count sizes the first block.
	a.slab.n, a.slab.next = int(n), len(tr.Events)
	for i := range a.liveInc {
		a.liveInc[i] = trace.None
	}
	// Programs and receipt logs are carved from shared arrays sized by a
	// counting pass: growing them by append per process copied each
	// several times (a re-execution after a rollback may still outgrow a
	// receipt log, and append then moves it as usual).
	nops, nrecv := make([]int, n), make([]int, n)
	total, totalRecv := 0, 0
	for i := range tr.Events {
		if e := &tr.Events[i]; e.Kind.IsOp() && e.P >= 0 && e.P < n {
			nops[e.P]++
			total++
			if e.Kind == trace.Recv {
				nrecv[e.P]++
				totalRecv++
			}
		}
	}
	ops := make([]op, total)
	receipts := make([]receipt, totalRecv)
	for i := range a.prog {
		a.prog[i], ops = ops[:0:nops[i]], ops[nops[i]:]
		a.procs[i].receipts, receipts = receipts[:0:nrecv[i]], receipts[nrecv[i]:]
	}
	for i := range tr.Events {
		e := &tr.Events[i]
		if e.Kind.IsOp() && e.P >= 0 && e.P < n {
			a.prog[e.P] = append(a.prog[e.P], op{kind: e.Kind, msg: e.Msg})
		}
	}
	for i := range a.procs {
		p := &a.procs[i]
		p.vt = make(trace.VT, n)
		p.known = NewKnown(int(n))
		p.ckpts = []ckpt{{id: 0, pos: 0, vt: make(trace.VT, n)}}
		p.nextID = 1
	}
	switch variant {
	case Default, NoToken, NoResend, NoRequeue:
	default:
		return nil, fmt.Errorf("pk: unknown variant %q (pk has none)", variant)
	}
	return a, nil
}

// Name implements replay.Algorithm.
func (a *PK) Name() string { return "pk" }

// Step implements replay.Algorithm.
func (a *PK) Step(in *replay.Input, fx []replay.Effect) []replay.Effect {
	if in.P < 0 || in.P >= a.n {
		return fx
	}
	p := &a.procs[in.P]
	switch in.Kind {
	case replay.InTick:
		if in.Down {
			return fx
		}
		fx = a.flush(p, fx)
		p.vt[in.P] = trace.VTEntry{Inc: p.inc, Count: in.Pos}
		e := replay.NewEffect(replay.EffCheckpoint)
		e.Ckpt, e.CkptType, e.VT = p.nextID, trace.CkptBasic, a.slab.clone(p.vt)
		p.ckpts = append(p.ckpts, ckpt{id: p.nextID, pos: in.Pos, vt: e.VT})
		p.nextID++
		fx = append(fx, e)
	case replay.InFlush:
		fx = a.flush(p, fx)
	case replay.InSend:
		fx = a.send(in, p, fx)
	case replay.InRecv:
		fx = a.recv(in, p, fx)
	case replay.InFail:
		a.fail(in, p)
	case replay.InRestart:
		fx = a.restart(in, p, fx)
	case replay.InControl:
		if in.Control == trace.ControlToken && in.Body != nil {
			fx = a.token(in.P, p, in.Body, in.Failure, fx)
		}
	}
	return fx
}

// flush makes the volatile log stable, one EffLog per entry.
func (a *PK) flush(p *proc, fx []replay.Effect) []replay.Effect {
	for i := p.stable; i < len(p.receipts); i++ {
		e := replay.NewEffect(replay.EffLog)
		e.Copy, e.Op = p.receipts[i].copy, p.receipts[i].op
		fx = append(fx, e)
	}
	p.stable = len(p.receipts)
	return fx
}

func (a *PK) send(in *replay.Input, p *proc, fx []replay.Effect) []replay.Effect {
	e := replay.NewEffect(replay.EffPiggyback)
	e.PB = trace.NewPiggyback()
	for len(p.stash) > 0 && p.stash[0].op < in.Op {
		p.stash = p.stash[1:]
	}
	if len(p.stash) > 0 && p.stash[0].op == in.Op {
		e.PB.VT = p.stash[0].pb
		p.stash = p.stash[1:]
	} else {
		p.vt[in.P] = trace.VTEntry{Inc: p.inc, Count: in.Pos + 1}
		e.PB.VT = a.slab.clone(p.vt)
	}
	p.sends = append(p.sends, sent{op: in.Op, msg: in.Msg, to: in.Peer, copy: in.Copy, inc: e.PB.VT[in.P].Inc})
	return append(fx, e)
}

func (a *PK) recv(in *replay.Input, p *proc, fx []replay.Effect) []replay.Effect {
	var vt trace.VT
	if in.PB != nil {
		vt = in.PB.VT
	}
	if len(vt) != int(a.n) || in.Peer < 0 || in.Peer >= a.n {
		// A copy without a PK vector cannot be judged; taking it would
		// break every later orphan test, so it is dropped as an orphan.
		e := replay.NewEffect(replay.EffDiscard)
		e.Reason = trace.ReasonOrphan
		return append(fx, e)
	}
	if q, inc, ok := p.known.OrphanWhy(vt); ok {
		e := replay.NewEffect(replay.EffDiscard)
		e.Reason, e.Failure = trace.ReasonOrphan, a.failure(q, inc)
		return append(fx, e)
	}
	if in.Msg >= 0 && int(in.Msg) < len(a.liveInc) && a.liveInc[in.Msg] == vt[in.Peer].Inc {
		e := replay.NewEffect(replay.EffDiscard)
		e.Reason = trace.ReasonDuplicate
		return append(fx, e)
	}
	if q, inc, ok := p.known.Missing(vt); ok {
		e := replay.NewEffect(replay.EffHold)
		e.Until = fmt.Sprintf("announcement of %s's incarnation %d", a.names[q], inc)
		e.Failure = a.failure(q, inc)
		return append(fx, e)
	}
	Merge(p.vt, vt)
	p.vt[in.P] = trace.VTEntry{Inc: p.inc, Count: in.Pos + 1}
	p.receipts = append(p.receipts, receipt{op: in.Op, msg: in.Msg, from: in.Peer, copy: in.Copy, pb: vt})
	if in.Msg >= 0 && int(in.Msg) < len(a.liveInc) {
		a.liveInc[in.Msg] = vt[in.Peer].Inc
	}
	return append(fx, replay.NewEffect(replay.EffDeliver))
}

// failure returns the seq of the fail event that ended incarnation inc of
// q, or None if none is known.
func (a *PK) failure(q, inc int32) int32 {
	if q >= 0 && q < a.n && inc >= 0 && int(inc) < len(a.failSeq[q]) {
		return a.failSeq[q][inc]
	}
	return trace.None
}

// fail drops the volatile state: the unflushed log and the clock. The
// stable log, checkpoints, announcements and inc survive.
func (a *PK) fail(in *replay.Input, p *proc) {
	for i := p.stable; i < len(p.receipts); i++ {
		a.unlive(&p.receipts[i])
	}
	p.receipts = p.receipts[:p.stable]
	p.crashPos = in.Pos
	p.stash = p.stash[:0]
	p.held = false
}

func (a *PK) unlive(r *receipt) {
	if r.msg >= 0 && int(r.msg) < len(a.liveInc) {
		a.liveInc[r.msg] = trace.None
	}
}

// latestClean returns the index in p.ckpts of the latest checkpoint that is
// not an orphan of p's known announcements. Checkpoint 0 never is.
func latestClean(p *proc) int {
	for i := len(p.ckpts) - 1; i > 0; i-- {
		if !p.known.Orphan(p.ckpts[i].vt) {
			return i
		}
	}
	return 0
}

// restart implements SPEC §5's restart of process i.
func (a *PK) restart(in *replay.Input, p *proc, fx []replay.Effect) []replay.Effect {
	i := in.P
	// Announcements that arrived while down are recorded first, so that
	// neither the restored checkpoint nor the replay keeps their orphans.
	for _, c := range in.Pending {
		if c.Control == trace.ControlToken && c.Body != nil {
			a.learn(p, c.Body, c.Failure)
		}
	}
	ci := latestClean(p)
	c := p.ckpts[ci]
	p.ckpts = p.ckpts[:ci+1]

	// Replay from c in program order, taking receives from the stable log.
	copy(p.vt, c.vt)
	p.vt[i] = trace.VTEntry{Inc: p.inc, Count: c.pos}
	prog := a.prog[i]
	li := sort.Search(len(p.receipts), func(k int) bool { return p.receipts[k].op >= c.pos })
	pos := c.pos
	p.stash = p.stash[:0]
	for ; int(pos) < len(prog); pos++ {
		o := prog[pos]
		if o.kind == trace.Recv {
			if li >= len(p.receipts) || p.receipts[li].op != pos || p.known.Orphan(p.receipts[li].pb) {
				break
			}
			Merge(p.vt, p.receipts[li].pb)
			li++
		}
		p.vt[i] = trace.VTEntry{Inc: p.inc, Count: pos + 1}
		if o.kind == trace.Send && pos >= p.crashPos {
			p.stash = append(p.stash, stashed{op: pos, pb: a.slab.clone(p.vt)})
		}
	}
	// The log holds at most one entry per op: entries from pos on belong
	// to undone receives and would otherwise be replayed by a later
	// restart although their messages may since have become orphans.
	for k := li; k < len(p.receipts); k++ {
		a.unlive(&p.receipts[k])
	}
	p.receipts = p.receipts[:li]
	p.stable = li
	p.sends = truncSends(p.sends, pos)

	// The announcement names the incarnation that ended; recording it
	// here lets this process judge messages of its new incarnation that
	// come back to it.
	ann := Announcement{P: i, Inc: p.inc, K: pos}
	a.setFailSeq(i, p.inc, in.Failure)
	p.known.Add(ann)
	p.inc++
	p.vt[i] = trace.VTEntry{Inc: p.inc, Count: pos}

	e := replay.NewEffect(replay.EffRestart)
	e.Ckpt, e.Pos, e.Inc, e.Resend, e.Failure = c.id, pos, p.inc, true, in.Failure
	fx = append(fx, e)

	// Alone on the ring there is nobody to tell and nothing to wait for:
	// the token would only come straight back.
	if a.n > 1 && a.variant != NoToken {
		body := trace.NewControlBody()
		body.Origin, body.Inc, body.K = i, ann.Inc, ann.K
		body.Received = make([]trace.Identity, len(p.receipts))
		for k := range p.receipts {
			body.Received[k] = trace.Identity{Msg: p.receipts[k].msg, Inc: p.receipts[k].inc()}
		}
		sort.Slice(body.Received, func(x, y int) bool { return body.Received[x].Msg < body.Received[y].Msg })
		t := replay.NewEffect(replay.EffControl)
		t.To, t.Control, t.Body, t.Failure = (i+1)%a.n, trace.ControlToken, &body, in.Failure
		fx = append(fx, t, replay.NewEffect(replay.EffHoldProcess))
		p.held = true
	}

	// Tokens recorded while down are handled now, in arrival order.
	for _, c := range in.Pending {
		if c.Control == trace.ControlToken && c.Body != nil {
			fx = a.token(i, p, c.Body, c.Failure, fx)
		}
	}
	return fx
}

func (a *PK) setFailSeq(q, inc, seq int32) {
	for int32(len(a.failSeq[q])) <= inc {
		a.failSeq[q] = append(a.failSeq[q], trace.None)
	}
	a.failSeq[q][inc] = seq
}

// learn records a token's announcement at p.
func (a *PK) learn(p *proc, b *trace.ControlBody, failure int32) Announcement {
	ann := Announcement{P: b.Origin, Inc: b.Inc, K: b.K}
	if ann.P >= 0 && ann.P < a.n && ann.Inc >= 0 {
		if a.failure(ann.P, ann.Inc) == trace.None {
			a.setFailSeq(ann.P, ann.Inc, failure)
		}
		p.known.Add(ann)
	}
	return ann
}

func truncSends(s []sent, pos int32) []sent {
	k := len(s)
	for k > 0 && s[k-1].op >= pos {
		k--
	}
	return s[:k]
}

// token handles a token at process j (up, possibly held).
func (a *PK) token(j int32, p *proc, b *trace.ControlBody, failure int32, fx []replay.Effect) []replay.Effect {
	if b.Origin == j {
		// Only the newest own token ends the hold: an older one returning
		// belongs to an incarnation that has failed again since.
		if p.held && b.Inc == p.inc-1 {
			p.held = false
			fx = append(fx, replay.NewEffect(replay.EffResume))
		}
		return fx
	}
	ann := a.learn(p, b, failure)
	if p.known.Orphan(p.vt) {
		fx = a.rollback(j, p, failure, fx)
	}
	// Resend every live send to the announcer that its recovered state
	// lacks; the engine repeats the copy with its own piggyback.
	for k := range p.sends {
		if a.variant == NoResend {
			break
		}
		s := &p.sends[k]
		if s.to != ann.P || hasIdentity(b.Received, s.msg, s.inc) {
			continue
		}
		e := replay.NewEffect(replay.EffResend)
		e.Copy, e.Op, e.Failure = s.copy, s.op, failure
		fx = append(fx, e)
	}
	fw := *b
	t := replay.NewEffect(replay.EffControl)
	t.To, t.Control, t.Body, t.Failure = (j+1)%a.n, trace.ControlToken, &fw, failure
	return append(fx, t)
}

func hasIdentity(ids []trace.Identity, msg, inc int32) bool {
	k := sort.Search(len(ids), func(x int) bool { return ids[x].Msg >= msg })
	for ; k < len(ids) && ids[k].Msg == msg; k++ {
		if ids[k].Inc == inc {
			return true
		}
	}
	return false
}

// rollback undoes exactly p's orphan suffix: it restores the latest
// checkpoint that is not an orphan and replays silently up to the first
// receipt of an orphan message.
func (a *PK) rollback(j int32, p *proc, failure int32, fx []replay.Effect) []replay.Effect {
	ci := latestClean(p)
	c := p.ckpts[ci]
	li := sort.Search(len(p.receipts), func(k int) bool { return p.receipts[k].op >= c.pos })
	first := li
	for first < len(p.receipts) && !p.known.Orphan(p.receipts[first].pb) {
		first++
	}
	if first == len(p.receipts) {
		// The state is an orphan although no receipt since the latest
		// clean checkpoint is: impossible while receipts are judged as
		// SPEC §5 says. Keep the state rather than undo innocent events.
		return fx
	}
	copy(p.vt, c.vt)
	for k := li; k < first; k++ {
		Merge(p.vt, p.receipts[k].pb)
	}
	pos := p.receipts[first].op
	p.vt[j] = trace.VTEntry{Inc: p.inc, Count: pos}
	p.ckpts = p.ckpts[:ci+1]

	e := replay.NewEffect(replay.EffRollback)
	e.Ckpt, e.Pos, e.Cause, e.Failure = c.id, pos, trace.CauseToken, failure
	for k := first; k < len(p.receipts); k++ {
		r := &p.receipts[k]
		a.unlive(r)
		if !p.known.Orphan(r.pb) && a.variant != NoRequeue {
			e.Requeue = append(e.Requeue, r.copy)
		}
	}
	p.receipts = p.receipts[:first]
	if p.stable > first {
		p.stable = first
	}
	p.sends = truncSends(p.sends, pos)
	p.stash = p.stash[:0]
	return append(fx, e)
}

// slab hands out vectors from large blocks, so that piggybacks and
// checkpoint vectors cost no allocation per event.
type slab struct {
	n   int
	buf []trace.VTEntry
	// next is the number of vectors in the next block. It starts at the
	// trace's size, so that a tiny trace does not pay for a half-megabyte
	// block it never fills, and doubles up to slabVectors(n), the block a
	// large trace gets from the start.
	next int
}

// slabVectors is the number of vectors in a full-size block: about 64K
// entries, and never fewer than 64 vectors.
func slabVectors(n int) int { return max(64, 65536/max(1, n)) }

func (s *slab) clone(v trace.VT) trace.VT {
	if len(s.buf) < s.n {
		full := slabVectors(s.n)
		k := min(max(s.next, 8), full)
		s.next = min(2*k, full)
		s.buf = make([]trace.VTEntry, s.n*k)
	}
	out := s.buf[:s.n:s.n]
	s.buf = s.buf[s.n:]
	copy(out, v)
	return out
}
