package replay

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/trace"
)

func (e *engine) execLocal(p, k int32, tev *trace.Event) error {
	if tev.Kind == trace.Send {
		if _, err := e.transmit(p, k, tev.Msg, tev.To, trace.None, NoCopy, trace.None, tev.Label); err != nil {
			return err
		}
		pr := &e.procs[p]
		pr.live = append(pr.live, CopyID(len(e.copies)-1))
		return nil
	}
	r := e.ev(trace.Internal, p)
	r.Op, r.Label = k, e.out.AddString(tev.Label)
	e.emit(r)
	pr := &e.procs[p]
	pr.live = append(pr.live, NoCopy)
	return nil
}

// execOp executes p's next op, which is ready now.
func (e *engine) execOp(p int32) error {
	pr := &e.procs[p]
	k := pr.pos()
	tev := &e.tr.Events[pr.prog[k]]
	switch tev.Kind {
	case trace.Send, trace.Internal:
		if err := e.execLocal(p, k, tev); err != nil {
			return err
		}
		pr = &e.procs[p]
	case trace.Recv:
		pr.blocked = true
		return e.tryRecv(p)
	}
	pr.exec = e.now
	e.schedule(p)
	return nil
}

// transmit sends a new copy of msg from p to `to`. A None pb asks the
// algorithm (InSend); a resend passes the piggyback (its index in the
// run's PBs, shared with the original) and number of the copy it repeats.

// first, then the mailbox's copies of the message in arrival order.
func (e *engine) tryRecv(p int32) error {
	pr := &e.procs[p]
	k := pr.pos()
	tev := &e.tr.Events[pr.prog[k]]
	msg := tev.Msg
	gen := pr.gen
	for pr.rcur < len(pr.replay) && pr.replay[pr.rcur].Op < k {
		pr.rcur++
	}
	if pr.rcur < len(pr.replay) && pr.replay[pr.rcur].Op == k {
		c := pr.replay[pr.rcur].Copy
		res, err := e.judge(p, k, c, trace.ViaLog)
		if err != nil || res != resDiscard || e.procs[p].gen != gen {
			return err
		}
		pr = &e.procs[p]
		pr.rcur++
	}
	for c := e.head[msg]; c != NoCopy; {
		next := e.copies[c].next
		res, err := e.judge(p, k, c, trace.ViaNet)
		if err != nil || res != resDiscard || e.procs[p].gen != gen {
			return err
		}
		c = next
	}
	pr = &e.procs[p]
	pr.blocked = true
	return nil
}

// Judgement results.
const (
	resNone = iota
	resDeliver
	resDiscard
	resHold
	resRolledBack
)

type judgement struct {
	res int
}

func (e *engine) judge(p, k int32, c CopyID, via trace.Via) (int, error) {
	cr := &e.copies[c]
	in := &e.in
	// in.PB points into the run's PBs. A send during this step may grow
	// that table; the algorithm then still reads the old array, whose
	// entries are never written after they are stored.
	*in = Input{Kind: InRecv, T: e.now, P: p, Pos: k, Op: k, Msg: cr.msg, Peer: cr.from,
		Copy: c, CopyNo: cr.no, Via: via, PB: &e.out.PBs[cr.pb]}
	j := judgement{}
	gen := e.procs[p].gen
	if err := e.apply(in, e.step(in), &j); err != nil {
		return resNone, err
	}
	if e.procs[p].gen != gen {
		return resRolledBack, nil
	}
	if j.res == resNone {
		return resNone, fmt.Errorf("replay: algorithm %s gave no judgement for a receive", e.alg.Name())
	}
	return j.res, nil
}

// apply applies the effects fx of input in, in order. j collects the
// judgement of an InRecv.
