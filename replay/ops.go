package replay

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/trace"
)

// Program operations (SPEC §3 "Time"): a send or internal op executes
// when ready; a receive when a copy of its message is in the mailbox or
// the replay log and the algorithm accepts one.

// execLocal executes op k of p when it is a send or an internal op: the
// ops that need nothing from the network, run alike in normal execution
// and in a restart's instant replay. A send transmits a new copy with the
// piggyback at index pb of the run's PBs.
func (e *engine) execLocal(p, k int32, tev *trace.Event, pb int32) {
	var c CopyID
	if tev.Kind == trace.Send {
		c = e.transmit(p, k, tev.Msg, tev.To, pb, NoCopy, 0, e.tr.Label(tev))
	} else {
		r := e.emit(trace.Internal, p)
		r.Op, r.Label = k, e.out.AddString(e.tr.Label(tev))
	}
	pr := &e.procs[p]
	pr.live = append(pr.live, c)
}

// execOp executes p's next op, which is ready now.
func (e *engine) execOp(p int32) error {
	pr := &e.procs[p]
	k := pr.pos()
	tev := &e.tr.Events[pr.prog[k]]
	switch tev.Kind {
	case trace.Send:
		pb, err := e.askPB(p, k, tev.Msg, tev.To)
		if err != nil {
			return err
		}
		e.execLocal(p, k, tev, pb)
	case trace.Internal:
		e.execLocal(p, k, tev, trace.None)
	case trace.Recv:
		pr.blocked = true
		return e.tryRecv(p)
	}
	pr = &e.procs[p]
	pr.exec = e.now
	e.schedule(p)
	return nil
}

// tryRecv offers p's waiting receive its candidates: the replay log's copy
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

// judge offers copy c, from via, to receive op k of p.
func (e *engine) judge(p, k int32, c CopyID, via trace.Via) (int, error) {
	cr := &e.copies[c]
	if err := e.usable(cr.pb, "offers a receive"); err != nil {
		return resNone, err
	}
	in := &e.in
	// in.PB points into the run's PBs, whose entries are never written
	// after they are stored but to drop their vector (release.go), which
	// the check above rules out here.
	*in = Input{Kind: InRecv, P: Proc(p), Pos: k, Op: k, Msg: Msg(cr.msg), Peer: Proc(cr.from),
		Copy: c, Via: via, PB: &e.out.PBs[cr.pb]}
	res := resNone
	gen := e.procs[p].gen
	if err := e.apply(in, e.step(in), &res); err != nil {
		return resNone, err
	}
	if e.procs[p].gen != gen {
		return resRolledBack, nil
	}
	if res == resNone {
		return resNone, fmt.Errorf("replay: algorithm %s gave no judgement for a receive", e.alg.Name())
	}
	return res, nil
}
