package replay

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/trace"
)

func (e *engine) apply(in *Input, fx []Effect, j *judgement) error {
	p := in.P
	e.depth++
	defer func() { e.depth-- }()
	retry := false
	for i := range fx {
		f := &fx[i]
		pr := &e.procs[p]
		switch f.Kind {
		case EffCheckpoint:
			if n := len(pr.ckpts); f.Ckpt <= 0 || (n > 0 && f.Ckpt <= pr.ckpts[n-1].id) {
				return fmt.Errorf("replay: algorithm %s: checkpoint id %d of %s not increasing", e.alg.Name(), f.Ckpt, e.tr.Processes[p])
			}
			pr.ckpts = append(pr.ckpts, ckptRec{id: f.Ckpt, pos: pr.pos()})
			r := e.ev(trace.Checkpoint, p)
			r.Ckpt, r.CkptType, r.Pos, r.Sn, r.VT, r.Failure = f.Ckpt, f.CkptType, pr.pos(), f.Sn, e.out.AddVT(f.VT), f.Failure
			e.emit(r)
		case EffSkip:
			r := e.ev(trace.CheckpointSkipped, p)
			r.Next, r.Sn, r.Reason = f.Next, f.Sn, f.Reason
			e.emit(r)
		case EffLog:
			if f.Copy < 0 || int(f.Copy) >= len(e.copies) {
				return fmt.Errorf("replay: algorithm %s logged unknown copy %d", e.alg.Name(), f.Copy)
			}
			cr := &e.copies[f.Copy]
			r := e.ev(trace.Log, p)
			r.Msg, r.Copy, r.Op = cr.msg, cr.no, f.Op
			e.emit(r)
		case EffDeliver, EffDiscard, EffHold:
			if in.Kind != InRecv || j == nil || j.res != resNone {
				return fmt.Errorf("replay: algorithm %s: judgement outside a receive", e.alg.Name())
			}
			if err := e.judged(in, f, j); err != nil {
				return err
			}
		case EffControl:
			if f.To < 0 || int(f.To) >= len(e.procs) || f.To == p {
				return fmt.Errorf("replay: algorithm %s: control message to bad process %d", e.alg.Name(), f.To)
			}
			r := e.ev(trace.ControlSend, p)
			r.Peer, r.Control, r.Body, r.Failure = f.To, f.Control, e.out.AddBody(f.Body), f.Failure
			e.emit(r)
			e.ctrls = append(e.ctrls, ctrlRec{from: p, to: f.To, control: f.Control, body: f.Body, bodyIdx: r.Body, failure: f.Failure})
			e.txSeq++
			e.q.push(item{t: e.now + e.params.ControlDelay, class: classArrival, kind: itemControl,
				key: e.txSeq, p: f.To, ref: int32(len(e.ctrls) - 1)})
		case EffRestart:
			if in.Kind != InRestart || i != 0 {
				return fmt.Errorf("replay: algorithm %s: EffRestart outside a restart", e.alg.Name())
			}
			if err := e.restore(p, f, true); err != nil {
				return err
			}
		case EffRollback:
			if in.Kind == InRestart && i == 0 {
				return fmt.Errorf("replay: algorithm %s: restart must begin with EffRestart", e.alg.Name())
			}
			if err := e.restore(p, f, false); err != nil {
				return err
			}
		case EffHoldProcess:
			pr.heldProc = true
			pr.gen++
			pr.blocked = false
		case EffResume:
			if pr.heldProc {
				pr.heldProc = false
				e.emit(e.ev(trace.Resume, p))
				if pr.exec < e.now {
					pr.exec = e.now
				}
				pr.gen++
				e.schedule(p)
			}
		case EffResend:
			if f.Copy < 0 || int(f.Copy) >= len(e.copies) || e.copies[f.Copy].from != p {
				return fmt.Errorf("replay: algorithm %s: resend of unknown copy %d", e.alg.Name(), f.Copy)
			}
			cr := e.copies[f.Copy]
			if _, err := e.transmit(p, cr.op, cr.msg, cr.to, cr.pb, f.Copy, f.Failure, ""); err != nil {
				return err
			}
		case EffRetry:
			retry = true
		case EffPiggyback:
			return fmt.Errorf("replay: algorithm %s: piggyback outside a send", e.alg.Name())
		default:
			return fmt.Errorf("replay: algorithm %s: unknown effect %d", e.alg.Name(), f.Kind)
		}
	}
	// Inside a receive's judgement the receive is being tried already; a
	// retry there could only recurse.
	if retry && in.Kind != InRecv {
		return e.retry(p)
	}
	return nil
}

// judged applies a receive's judgement.
func (e *engine) judged(in *Input, f *Effect, j *judgement) error {
	p := in.P
	pr := &e.procs[p]
	c := in.Copy
	cr := &e.copies[c]
	if f.Kind != EffHold && pr.heldRecv {
		pr.heldRecv = false
		r := e.ev(trace.Unhold, p)
		r.Msg = cr.msg
		r.Failure = f.Failure
		e.emit(r)
	}
	switch f.Kind {
	case EffDeliver:
		j.res = resDeliver
		if in.Via == trace.ViaNet {
			e.boxRemove(c)
			cr.state = copyTaken
		}
		r := e.ev(trace.Recv, p)
		r.Msg, r.Peer, r.Op, r.Copy, r.Via = cr.msg, cr.from, in.Op, cr.no, in.Via
		r.Label = e.out.AddString(e.tr.Events[pr.prog[in.Op]].Label)
		e.emit(r)
		pr.live = append(pr.live, c)
		pr.blocked = false
		pr.exec = e.now
		e.schedule(p)
	case EffDiscard:
		j.res = resDiscard
		if in.Via == trace.ViaNet {
			e.boxRemove(c)
			cr.state = copyDiscarded
		}
		r := e.ev(trace.Discard, p)
		r.Msg, r.Copy, r.Reason, r.Failure = cr.msg, cr.no, f.Reason, f.Failure
		e.emit(r)
	case EffHold:
		j.res = resHold
		pr.blocked = false
		if !pr.heldRecv {
			pr.heldRecv = true
			pr.holdMsg = cr.msg
			r := e.ev(trace.Hold, p)
			r.Msg, r.Until, r.Failure = cr.msg, e.out.AddString(f.Until), f.Failure
			e.emit(r)
		}
	}
	return nil
}

// restore applies EffRestart (restart) or EffRollback.
