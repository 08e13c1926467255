package replay

import (
	"fmt"
	"slices"

	"github.com/ckpt-dev/ckpt/trace"
)

// The network: copies in transit and mailboxes (SPEC §3 "Network").
// Mailboxes belong to the network and survive crashes; each is a set of
// intrusive lists, one per message id, over the copy table.

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
	op         int32  // the sender's op
	arrSeq     int64  // arrival order, for mailbox order and requeue
	pb         int32  // index into the run's PBs
	next, prev CopyID // mailbox list of copies of msg, in arrival order
	state      uint8
}

// ctrlRec is one control message in flight: what its receiver is
// handed, and who that is.
type ctrlRec struct {
	ControlMsg
	to      int32
	bodyIdx int32 // body's index in the run's Bodies, shared by send and receive
}

// transmit sends a new copy of msg from p to `to`, carrying the piggyback
// at index pb of the run's PBs. A resend passes the copy it repeats as
// of (whose piggyback it shares) and the failure it answers.
func (e *engine) transmit(p, op, msg, to int32, pb int32, of CopyID, failure Seq, label string) CopyID {
	c := CopyID(len(e.copies))
	e.ncopy[msg]++
	no := e.ncopy[msg]
	e.copies = append(e.copies, copyRec{msg: msg, no: no, from: p, to: to, op: op, pb: pb})
	e.hold(pb, of == NoCopy)
	r := e.emit(trace.Send, p)
	r.Msg, r.Peer, r.Op, r.Copy, r.PB, r.Label = msg, to, op, no, pb, e.out.AddString(label)
	if of != NoCopy {
		r.Resend, r.Of, r.Failure = true, e.copies[of].no, failure.Run()
	}
	t, ok := later(e.now, e.delay(msg))
	if !ok {
		e.tooLate(t, int(e.tr.Messages[msg].Send), "copy %d of %s would arrive at %s", no, e.tr.Msgs[msg])
		return c
	}
	e.txSeq++
	e.q.push(item{t: t, class: classArrival, kind: itemData, key: e.txSeq, p: to, ref: int32(c)})
	return c
}

// askPB asks the algorithm for the piggyback of op k of p, a send of msg
// to `to` about to transmit, and stores it.
func (e *engine) askPB(p, k, msg, to int32) (int32, error) {
	in := &e.in
	*in = Input{Kind: InSend, P: Proc(p), Pos: e.procs[p].pos(), Op: k, Msg: Msg(msg), Peer: Proc(to),
		Copy: CopyID(len(e.copies))}
	fx := e.step(in)
	if len(fx) != 1 || fx[0].Kind != EffPiggyback {
		return 0, fmt.Errorf("replay: algorithm %s must answer a send with one EffPiggyback", e.alg.Name())
	}
	return e.storePB(p, &fx[0].PB), nil
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
	e.pbRefs = append(e.pbRefs, 0)
	return i
}

// storeVT keeps a checkpoint vector in the run's VTs table and returns
// its index; it shares the process's previous one when the algorithm
// handed the same (immutable) vector again.
func (e *engine) storeVT(p int32, vt trace.VT) int32 {
	if last := e.lastVT[p]; last != trace.None && len(vt) > 0 && len(e.out.VTs[last]) == len(vt) && &e.out.VTs[last][0] == &vt[0] {
		return last
	}
	e.replaced(e.lastVT[p])
	i := e.out.AddVT(vt)
	e.lastVT[p] = i
	return i
}

// storeBody keeps a control body in the run's Bodies table once, however
// often it is sent.
func (e *engine) storeBody(b *trace.ControlBody) int32 {
	if b == nil {
		return trace.None
	}
	if i, ok := e.bodies[b]; ok {
		return i
	}
	i := e.out.AddBody(b)
	if e.bodies == nil {
		e.bodies = map[*trace.ControlBody]int32{}
	}
	e.bodies[b] = i
	return i
}

// samePB reports whether a and b are equal piggybacks. CIC vectors are
// compared by identity: FDAS and HMNR share one until their state
// changes, so that is exactly when consecutive sends can share an entry.
func samePB(a, b *trace.Piggyback) bool {
	return a.Sn == b.Sn && a.Inc == b.Inc && a.RecLine == b.RecLine && a.CIC == b.CIC &&
		a.VT == nil && b.VT == nil && slices.Equal(a.F, b.F)
}

// arriveData puts copy c into its receiver's mailbox, and wakes the
// receiver's receive if it is blocked waiting for that message.
func (e *engine) arriveData(c CopyID) {
	cr := &e.copies[c]
	cr.state = copyBox
	e.arrSeq++
	cr.arrSeq = e.arrSeq
	e.boxAppend(c)
	pr := &e.procs[cr.to]
	if pr.blocked && !pr.heldRecv && e.tr.Events[pr.prog[pr.pos()]].Msg == cr.msg {
		e.wake(cr.to)
	}
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
