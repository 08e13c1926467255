package pk

import (
	"slices"

	"fmt"

	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// The rules of SPEC §5 are one file each: vector time and announcements
// (vt.go), receipt of a copy (recv.go), restart (restart.go), tokens
// (token.go), rollback (rollback.go); this file holds the state,
// checkpoints, the log's flushes and sends.

// op is one program operation of a process, as PK's restart replay needs
// it: receives consult the log, sends are recorded for resends.
type op struct {
	kind trace.Kind
	msg  int32
	to   int32 // a send's receiver
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
	// node is the delivery's node in the receipt log.
	node int32
	// pb is the copy's piggyback vector, shared with the engine's copy
	// (immutable), so a receipt costs no vector allocation.
	pb trace.VT
}

// sent is a live send of a process; resends for tokens repeat it (the
// engine knows the copy the send at op transmitted).
type sent struct {
	op  int32
	msg int32
	to  int32
	inc int32
}

// proc is PK's state at one process. Stable: inc, known, ckpts,
// receipts[:stable]. Volatile: everything else.
type proc struct {
	inc   int32
	clock clock
	known *Known
	ckpts []ckpt
	// nextID numbers checkpoints; ids are never reused, also across
	// rollbacks, so a run names each checkpoint once.
	nextID   int32
	receipts []receipt
	// below is the receipt-log node of the latest receipt collected
	// below the line (line.go), or None: the chain a token's received
	// set walks goes on below the receipts kept.
	below  int32
	stable int
	sends  []sent
	// held is set from a restart until the newest own token returns.
	held bool
}

// PK is the Peterson–Kearns algorithm for one trace: the state of every
// process. It implements replay.Algorithm.
type PK struct {
	names []string
	n     int32
	procs []proc
	prog  [][]op
	// liveInc[m] is the sender incarnation of the live receipt of message
	// m (each message has one receiver), or None: the duplicate test.
	liveInc []int32
	// failSeq[{p, inc}] is the fail event that ended incarnation inc of
	// p, used only to attribute discards, holds and rollbacks.
	failSeq map[[2]int32]replay.Seq
	// log holds every delivery, so that a token's received set is a
	// view, not a copy (receipts.go).
	log receiptLog
	// sendInc[m] and sendOp[m] are the identity incarnation and op of
	// message m's live send, sendInc None when it has none; out lists the
	// messages whose live send has no live receipt of its identity;
	// msgFrom, msgTo and msgOp are each message's sender, receiver and
	// the op of the sender's program that sends it.
	sendInc, sendOp       []int32
	out                   outstanding
	msgFrom, msgTo, msgOp []int32
	scratch               []int32
	// restarted lists, increasing, the processes that have restarted:
	// only their vector entries can name an incarnation above 0.
	restarted []int32
	// line is the recovery line no failure can cross (line.go).
	line line
}

// Default is the only variant: PK has none.
const Default = ""

// New returns the PK state machine for tr with the given variant.
func New(variant string, tr *trace.Trace) (*PK, error) {
	if variant != Default {
		return nil, fmt.Errorf("pk: unknown variant %q (pk has none)", variant)
	}
	n := int32(len(tr.Processes))
	a := &PK{
		names:   tr.Processes,
		n:       n,
		procs:   make([]proc, n),
		prog:    make([][]op, n),
		liveInc: slices.Repeat([]int32{trace.None}, len(tr.Msgs)),
		failSeq: map[[2]int32]replay.Seq{},
		log:     newReceiptLog(len(tr.Msgs)),
		out:     newOutstanding(len(tr.Msgs)),
	}
	nm := len(tr.Msgs)
	per := slices.Repeat([]int32{trace.None}, 5*nm)
	a.sendInc, a.sendOp, a.msgFrom, a.msgTo, a.msgOp = per[:nm:nm], per[nm:2*nm:2*nm], per[2*nm:3*nm:3*nm], per[3*nm:4*nm:4*nm], per[4*nm:]
	a.carve(tr)
	zero := make(trace.VT, n) // checkpoint 0's vector, the same at every process
	a.line.all = NewKnown(int(n))
	for i := range a.procs {
		p := &a.procs[i]
		p.clock = clock{self: int32(i), n: n}
		p.known = NewKnown(int(n))
		p.ckpts = []ckpt{{id: 0, pos: 0, vt: zero}}
		p.nextID = 1
		p.below = trace.None
	}
	return a, nil
}

// carve fills the programs and the senders, receivers and send ops of
// the messages. The programs are counted first and cut from one array:
// grown by append they were copied as they doubled, most of PK's set-up
// (10^6 events: 0.35 s of CPU under load, page faults included).
func (a *PK) carve(tr *trace.Trace) {
	count, total := make([]int, a.n), 0
	for i := range tr.Events {
		if e := &tr.Events[i]; e.Kind.IsOp() && e.P >= 0 && e.P < a.n {
			count[e.P]++
			total++
		}
	}
	all := make([]op, 0, total)
	for p, k := range count {
		a.prog[p], all = all[:0:k], all[k:k]
	}
	for i := range tr.Events {
		e := &tr.Events[i]
		if e.Kind.IsOp() && e.P >= 0 && e.P < a.n {
			if e.Kind == trace.Send && e.Msg >= 0 && int(e.Msg) < len(a.msgFrom) {
				a.msgFrom[e.Msg], a.msgTo[e.Msg], a.msgOp[e.Msg] = e.P, e.To, int32(len(a.prog[e.P]))
			}
			a.prog[e.P] = append(a.prog[e.P], op{kind: e.Kind, msg: e.Msg, to: e.To})
		}
	}
}

// Name implements replay.Algorithm.
func (a *PK) Name() string { return "pk" }

// Step implements replay.Algorithm.
func (a *PK) Step(in *replay.Input, fx []replay.Effect) []replay.Effect {
	if in.P < 0 || int32(in.P) >= a.n {
		return fx
	}
	p := &a.procs[in.P]
	switch in.Kind {
	case replay.InTick:
		if !in.Down {
			fx = a.checkpoint(in, p, fx)
		}
	case replay.InFlush:
		fx = a.flush(p, fx)
	case replay.InSend:
		fx = a.send(in, p, fx)
	case replay.InRecv:
		fx = a.recv(in, p, fx)
	case replay.InFail:
		a.fail(p)
	case replay.InRestart:
		fx = a.restart(in, p, fx)
	case replay.InControl:
		if in.Control == trace.ControlToken && in.Body != nil {
			fx = a.token(int32(in.P), p, in.Body, in.Failure, fx)
		}
	}
	return fx
}

// checkpoint takes a basic checkpoint at a tick; it flushes the volatile
// log first (SPEC §5).
func (a *PK) checkpoint(in *replay.Input, p *proc, fx []replay.Effect) []replay.Effect {
	fx = a.flush(p, fx)
	p.clock.own = trace.VTEntry{Inc: p.inc, Count: in.Pos}
	// Vectors are immutable once handed out: a checkpoint whose vector is
	// the clock's last (no op since, as a process that only ticks) shares
	// it, and the run then shares its entry too.
	vt := p.clock.vector()
	p.ckpts = append(p.ckpts, ckpt{id: p.nextID, pos: in.Pos, vt: vt})
	fx = append(fx, replay.Effect{Kind: replay.EffCheckpoint, Ckpt: p.nextID, CkptType: trace.CkptBasic, VT: vt})
	p.nextID++
	return a.collect(fx)
}

// flush makes the volatile log stable, one EffLog per entry.
func (a *PK) flush(p *proc, fx []replay.Effect) []replay.Effect {
	for i := p.stable; i < len(p.receipts); i++ {
		fx = append(fx, replay.Effect{Kind: replay.EffLog, Copy: p.receipts[i].copy, Op: p.receipts[i].op})
	}
	p.stable = len(p.receipts)
	return fx
}

// send stamps a send with the sender's vector, after its own count moves
// to the send's position, and records it for resends.
func (a *PK) send(in *replay.Input, p *proc, fx []replay.Effect) []replay.Effect {
	p.clock.own = trace.VTEntry{Inc: p.inc, Count: in.Pos + 1}
	pb := trace.NewPiggyback()
	pb.VT = p.clock.vector()
	a.addSend(p, sent{op: in.Op, msg: int32(in.Msg), to: int32(in.Peer), inc: p.inc})
	return append(fx, replay.Effect{Kind: replay.EffPiggyback, PB: pb})
}

// addSend records a live send.
func (a *PK) addSend(p *proc, s sent) {
	p.sends = append(p.sends, s)
	if s.msg >= 0 && int(s.msg) < len(a.sendInc) {
		a.sendInc[s.msg], a.sendOp[s.msg] = s.inc, s.op
		a.listed(s.msg)
	}
}

// truncSends drops the live sends at ops from pos on.
func (a *PK) truncSends(p *proc, pos int32) {
	k := len(p.sends)
	for k > 0 && p.sends[k-1].op >= pos {
		k--
		if m := p.sends[k].msg; m >= 0 && int(m) < len(a.sendInc) {
			a.sendInc[m] = trace.None
			a.listed(m)
		}
	}
	p.sends = p.sends[:k]
}

// listed lists message m as outstanding iff its live send has no live
// receipt of its identity.
func (a *PK) listed(m int32) {
	a.out.set(m, a.msgFrom[m], a.msgTo[m], a.sendInc[m] != trace.None && a.liveInc[m] != a.sendInc[m])
}

// fail drops the volatile state: the unflushed log and the clock. The
// stable log, checkpoints, announcements and inc survive.
func (a *PK) fail(p *proc) {
	for i := p.stable; i < len(p.receipts); i++ {
		a.unlive(&p.receipts[i])
	}
	p.receipts = p.receipts[:p.stable]
	p.held = false
}

// unlive drops a receipt from its process's live receipts.
func (a *PK) unlive(r *receipt) {
	a.log.pop(r.node)
	if r.msg >= 0 && int(r.msg) < len(a.liveInc) {
		a.liveInc[r.msg] = trace.None
		a.listed(r.msg)
	}
}

// top returns the receipt-log node of p's latest live receipt, or None.
func (p *proc) top() int32 {
	if len(p.receipts) == 0 {
		return p.below
	}
	return p.receipts[len(p.receipts)-1].node
}

// latestClean returns the index in p.ckpts of the latest checkpoint that is
// not an orphan of p's known announcements. The first never is: it is
// checkpoint 0 or, once collected, p's checkpoint on the line (line.go).
func latestClean(p *proc) int {
	for i := len(p.ckpts) - 1; i > 0; i-- {
		if !p.known.Orphan(p.ckpts[i].vt) {
			return i
		}
	}
	return 0
}

// failure returns the fail event that ended incarnation inc of q, if
// known.
func (a *PK) failure(q, inc int32) replay.Seq { return a.failSeq[[2]int32{q, inc}] }
