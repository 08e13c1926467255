package replay

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/trace"
)

func (e *engine) envEvent(i int) error {
	ev := &e.tr.Events[i]
	p := ev.P
	pr := &e.procs[p]
	switch ev.Kind {
	case trace.Checkpoint:
		in := &e.in
		*in = Input{Kind: InTick, T: e.now, P: p, Pos: pr.pos(), Down: pr.down, Held: pr.heldProc}
		if pr.down {
			r := e.ev(trace.CheckpointSkipped, p)
			r.Reason = trace.ReasonDown
			r.Label = e.out.AddString(ev.Label)
			e.emit(r)
			e.step(in)
			return nil
		}
		from := len(e.out.Events)
		if err := e.apply(in, e.step(in), nil); err != nil {
			return err
		}
		// SPEC §2: labels are kept in runs. The tick's label goes on what
		// the tick produced: its checkpoint or its checkpoint_skipped.
		if ev.Label != "" {
			label := e.out.AddString(ev.Label)
			for j := from; j < len(e.out.Events); j++ {
				if r := &e.out.Events[j]; r.P == p && (r.Kind == trace.CheckpointSkipped || (r.Kind == trace.Checkpoint && r.CkptType == trace.CkptBasic)) {
					r.Label = label
				}
			}
		}
		return nil
	case trace.Flush:
		if pr.down {
			return nil
		}
		in := &e.in
		*in = Input{Kind: InFlush, T: e.now, P: p, Pos: pr.pos()}
		return e.apply(in, e.step(in), nil)
	case trace.Fail:
		r := e.ev(trace.Fail, p)
		r.Label = e.out.AddString(ev.Label)
		seq := e.emit(r)
		if pr.down {
			return nil // ignored: already down
		}
		pr.down = true
		pr.gen++
		pr.blocked, pr.heldRecv, pr.heldProc = false, false, false
		d := ev.Down
		if d == 0 {
			d = e.params.RestartDelay
		}
		e.q.push(item{t: e.now + d, class: classRestart, kind: itemRestart, key: int64(i), p: p, ref: seq})
		in := &e.in
		*in = Input{Kind: InFail, T: e.now, P: p, Pos: pr.pos(), Failure: seq}
		if fx := e.step(in); len(fx) != 0 {
			return fmt.Errorf("replay: algorithm %s returned effects for a failure", e.alg.Name())
		}
	}
	return nil
}

func (e *engine) restart(p int32, failure int32) error {
	pr := &e.procs[p]
	pr.down = false
	in := &Input{Kind: InRestart, T: e.now, P: p, Pos: pr.pos(), Failure: failure, Pending: pr.pending}
	fx := e.step(in)
	if len(fx) == 0 || fx[0].Kind != EffRestart {
		return fmt.Errorf("replay: algorithm %s did not answer a restart with EffRestart", e.alg.Name())
	}
	err := e.apply(in, fx, nil)
	pr = &e.procs[p]
	pr.pending = pr.pending[:0]
	return err
}

func (e *engine) arriveControl(ref int32) error {
	c := &e.ctrls[ref]
	r := e.ev(trace.ControlRecv, c.to)
	r.Peer, r.Control, r.Body, r.Failure = c.from, c.control, c.bodyIdx, c.failure
	e.emit(r)
	pr := &e.procs[c.to]
	if pr.down {
		pr.pending = append(pr.pending, ControlMsg{T: e.now, From: c.from, Control: c.control, Body: c.body, Failure: c.failure})
		return nil
	}
	in := &Input{Kind: InControl, T: e.now, P: c.to, Pos: pr.pos(), Peer: c.from,
		Control: c.control, Body: c.body, Failure: c.failure}
	if err := e.apply(in, e.step(in), nil); err != nil {
		return err
	}
	return e.retry(c.to)
}

// retry re-tries p's held receive, if any.
func (e *engine) retry(p int32) error {
	pr := &e.procs[p]
	if !pr.heldRecv || pr.down || pr.heldProc {
		return nil
	}
	return e.tryRecv(p)
}
