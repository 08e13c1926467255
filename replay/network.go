package replay

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/trace"
)

// Copy states.
const (
	copyTransit = iota
	copyBox
	copyTaken
	copyDiscarded
)

// copyRec is one transmitted copy of a data message.
type copyRec struct {
	msg, no    int32
	from, to   int32
	op         int32 // the sender's op
	arrive     trace.Time
	arrSeq     int64  // arrival order, for mailbox order and requeue
	pb         int32  // index into the run's PBs
	next, prev CopyID // mailbox list of copies of msg, in arrival order
	state      uint8
}

// ctrlRec is one control message.
type ctrlRec struct {
	from, to int32
	control  trace.Control
	body     *trace.ControlBody
	bodyIdx  int32 // body's index in the run's Bodies, shared by send and receive
	failure  int32
}

func (e *engine) arriveData(c CopyID) error {
	cr := &e.copies[c]
	cr.state = copyBox
	e.arrSeq++
	cr.arrSeq = e.arrSeq
	e.boxAppend(c)
	pr := &e.procs[cr.to]
	if pr.blocked && !pr.down && !pr.heldProc && !pr.heldRecv && e.tr.Events[pr.prog[pr.pos()]].Msg == cr.msg {
		// The waiting receive is an op that is ready: SPEC §3 orders it
		// among the trace-indexed items at this time by its trace index,
		// after every arrival at this time, not at the arrival itself.
		// Clearing blocked keeps a second copy arriving now from queueing
		// it twice; the op sets it again if no copy is accepted.
		pr.blocked = false
		k := pr.pos()
		e.q.push(item{t: e.now, class: classIndexed, kind: itemOp, key: int64(pr.prog[k]), p: cr.to, gen: pr.gen, ref: k})
	}
	return nil
}

func (e *engine) boxAppend(c CopyID) {
	cr := &e.copies[c]
	m := cr.msg
	cr.next, cr.prev = NoCopy, e.tail[m]
	if e.tail[m] == NoCopy {
		e.head[m] = c
	} else {
		e.copies[e.tail[m]].next = c
	}
	e.tail[m] = c
}

// boxInsert puts c back into its mailbox at its original arrival position.
func (e *engine) boxInsert(c CopyID) {
	cr := &e.copies[c]
	m := cr.msg
	at := e.head[m]
	for at != NoCopy && e.copies[at].arrSeq < cr.arrSeq {
		at = e.copies[at].next
	}
	if at == NoCopy {
		e.boxAppend(c)
		return
	}
	a := &e.copies[at]
	cr.next, cr.prev = at, a.prev
	if a.prev == NoCopy {
		e.head[m] = c
	} else {
		e.copies[a.prev].next = c
	}
	a.prev = c
}

func (e *engine) boxRemove(c CopyID) {
	cr := &e.copies[c]
	m := cr.msg
	if cr.prev == NoCopy {
		e.head[m] = cr.next
	} else {
		e.copies[cr.prev].next = cr.next
	}
	if cr.next == NoCopy {
		e.tail[m] = cr.prev
	} else {
		e.copies[cr.next].prev = cr.prev
	}
	cr.next, cr.prev = NoCopy, NoCopy
}

// execLocal executes op k of p when it is a send or an internal op: the
// ops that need nothing from the network, run alike in normal execution
// and in a restart's instant replay. A send transmits a new copy.

func (e *engine) transmit(p, op, msg, to int32, pb int32, of CopyID, failure int32, label string) (CopyID, error) {
	c := CopyID(len(e.copies))
	e.ncopy[msg]++
	no := e.ncopy[msg]
	if pb == trace.None {
		in := &e.inSend
		*in = Input{Kind: InSend, T: e.now, P: p, Pos: e.procs[p].pos(), Op: op, Msg: msg, Peer: to, Copy: c, CopyNo: no}
		e.depth++
		fx := e.step(in)
		e.depth--
		if len(fx) != 1 || fx[0].Kind != EffPiggyback {
			return NoCopy, fmt.Errorf("replay: algorithm %s must answer a send with one EffPiggyback", e.alg.Name())
		}
		pb = e.storePB(p, &fx[0].PB)
	}
	d := e.delay(msg)
	e.copies = append(e.copies, copyRec{msg: msg, no: no, from: p, to: to, op: op,
		arrive: e.now + d, pb: pb, next: NoCopy, prev: NoCopy})
	r := e.ev(trace.Send, p)
	r.Msg, r.Peer, r.Op, r.Copy, r.PB, r.Label = msg, to, op, no, pb, e.out.AddString(label)
	if of != NoCopy {
		r.Resend, r.Of, r.Failure = true, e.copies[of].no, failure
	}
	e.emit(r)
	e.txSeq++
	e.q.push(item{t: e.now + d, class: classArrival, kind: itemData, key: e.txSeq, p: to, ref: int32(c)})
	return c, nil
}

// storePB keeps a piggyback in the run's PBs table and returns its index;
// it shares the process's previous one when equal, which is the common
// case for MS.
func (e *engine) storePB(p int32, pb *trace.Piggyback) int32 {
	if last := e.lastPB[p]; last != trace.None && samePB(&e.out.PBs[last], pb) {
		return last
	}
	i := e.out.AddPB(pb)
	e.lastPB[p] = i
	return i
}

func samePB(a, b *trace.Piggyback) bool {
	if a.Sn != b.Sn || a.Inc != b.Inc || a.RecLine != b.RecLine || a.VT != nil || b.VT != nil || len(a.F) != len(b.F) {
		return false
	}
	for i := range a.F {
		if a.F[i] != b.F[i] {
			return false
		}
	}
	return true
}

// tryRecv offers p's waiting receive its candidates: the replay log's copy
