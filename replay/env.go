package replay

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/trace"
)

// Environment events (SPEC §3): ticks, flushes and failures happen at
// their trace time; restarts and control messages follow from them.

// envEvent handles trace event i, an environment event.
func (e *engine) envEvent(i int) error {
	ev := &e.tr.Events[i]
	switch ev.Kind {
	case trace.Checkpoint:
		return e.tick(i)
	case trace.Flush:
		p := ev.P
		pr := &e.procs[p]
		if pr.down {
			return nil
		}
		in := &e.in
		*in = Input{Kind: InFlush, P: Proc(p), Pos: pr.pos()}
		return e.apply(in, e.step(in), nil)
	case trace.Fail:
		return e.fail(i)
	}
	return nil
}

// tick handles trace event i, a basic-checkpoint timer tick.
func (e *engine) tick(i int) error {
	ev := &e.tr.Events[i]
	p := ev.P
	pr := &e.procs[p]
	in := &e.in
	*in = Input{Kind: InTick, P: Proc(p), Pos: pr.pos(), Down: pr.down}
	if pr.down {
		r := e.emit(trace.CheckpointSkipped, p)
		r.Reason = trace.ReasonDown
		r.Label = e.out.AddString(e.tr.Label(ev))
		e.step(in)
		return nil
	}
	from := len(e.out.Events)
	if err := e.apply(in, e.step(in), nil); err != nil {
		return err
	}
	// SPEC §2: labels are kept in runs. The tick's label goes on what
	// the tick produced: its checkpoint or its checkpoint_skipped.
	if ev.Label != 0 {
		label := e.out.AddString(e.tr.Label(ev))
		for j := from; j < len(e.out.Events); j++ {
			if r := &e.out.Events[j]; r.P == p && (r.Kind == trace.CheckpointSkipped || (r.Kind == trace.Checkpoint && r.CkptType == trace.CkptBasic)) {
				r.Label = label
			}
		}
	}
	return nil
}

// fail handles trace event i, a failure: the process is down until its
// restart, which is queued.
func (e *engine) fail(i int) error {
	ev := &e.tr.Events[i]
	p := ev.P
	pr := &e.procs[p]
	r := e.emit(trace.Fail, p)
	r.Label = e.out.AddString(e.tr.Label(ev))
	seq := r.Seq
	if pr.down {
		return nil // ignored: already down
	}
	pr.down = true
	pr.stale()
	pr.blocked, pr.heldRecv, pr.heldProc, pr.paused = false, false, false, false
	if t, ok := later(e.now, e.params.DownOf(ev)); ok {
		e.q.push(item{t: t, class: classRestart, kind: itemRestart, key: int64(i), p: p, ref: seq})
	} else {
		e.tooLate(t, i, "%s's restart would be at %s", e.name(p))
	}
	in := &e.in
	*in = Input{Kind: InFail, P: Proc(p), Pos: pr.pos(), Failure: SeqOf(seq)}
	if fx := e.step(in); len(fx) != 0 {
		return fmt.Errorf("replay: algorithm %s returned effects for a failure", e.alg.Name())
	}
	return nil
}

// restart restarts p after the failure whose fail event is run event
// failure.
func (e *engine) restart(p int32, failure int32) error {
	pr := &e.procs[p]
	pr.down = false
	in := &e.in
	*in = Input{Kind: InRestart, P: Proc(p), Pos: pr.pos(), Failure: SeqOf(failure), Pending: pr.pending}
	fx := e.step(in)
	if len(fx) == 0 || fx[0].Kind != EffRestart {
		return fmt.Errorf("replay: algorithm %s did not answer a restart with EffRestart", e.alg.Name())
	}
	err := e.apply(in, fx, nil)
	pr = &e.procs[p]
	pr.pending = pr.pending[:0]
	return err
}

// sendControl sends control message f from p; it arrives control_delay
// later.
func (e *engine) sendControl(p int32, f *Effect) error {
	to := int32(f.To)
	if to < 0 || int(to) >= len(e.procs) {
		return fmt.Errorf("replay: algorithm %s: control message to bad process %d", e.alg.Name(), f.To)
	}
	r := e.emit(trace.ControlSend, p)
	r.Peer, r.Control, r.Body, r.Failure = to, f.Control, e.storeBody(f.Body), f.Failure.Run()
	t, ok := later(e.now, e.params.ControlDelay)
	if !ok {
		e.tooLate(t, -1, "%s's %s message to %s would arrive at %s", e.name(p), f.Control, e.name(to))
		return nil
	}
	msg := ControlMsg{From: Proc(p), Control: f.Control, Body: f.Body, Failure: f.Failure}
	ref := e.storeCtrl(ctrlRec{ControlMsg: msg, to: to, bodyIdx: r.Body})
	e.txSeq++
	e.q.push(item{t: t, class: classArrival, kind: itemControl, key: e.txSeq, p: to, ref: ref})
	return nil
}

// storeCtrl keeps a control message in flight, in a slot an arrived one
// freed if there is one: only those in flight take room (10^5 failures
// sent 10^6 control messages, 120 MB of records kept to the end).
func (e *engine) storeCtrl(c ctrlRec) int32 {
	if n := len(e.ctrlFree); n > 0 {
		ref := e.ctrlFree[n-1]
		e.ctrlFree = e.ctrlFree[:n-1]
		e.ctrls[ref] = c
		return ref
	}
	e.ctrls = append(e.ctrls, c)
	return int32(len(e.ctrls) - 1)
}

// arriveControl hands control message ref to its receiver, or records it
// for the restart of a receiver that is down. A held receive of the
// receiver may be released by it: it becomes a ready op (wake), tried
// after every arrival at this time.
func (e *engine) arriveControl(ref int32) error {
	// Copied out and the slot freed at once: the step may send control
	// messages that reuse it.
	c := e.ctrls[ref]
	e.ctrls[ref] = ctrlRec{}
	e.ctrlFree = append(e.ctrlFree, ref)
	r := e.emit(trace.ControlRecv, c.to)
	r.Peer, r.Control, r.Body, r.Failure = int32(c.From), c.Control, c.bodyIdx, c.Failure.Run()
	pr := &e.procs[c.to]
	if pr.down {
		pr.pending = append(pr.pending, c.ControlMsg)
		return nil
	}
	in := &e.in
	*in = Input{Kind: InControl, P: Proc(c.to), Pos: pr.pos(), Peer: c.From,
		Control: c.Control, Body: c.Body, Failure: c.Failure}
	if err := e.apply(in, e.step(in), nil); err != nil {
		return err
	}
	e.retry(c.to)
	return nil
}

// retry makes p's held receive, if any, a ready op again.
func (e *engine) retry(p int32) {
	if pr := &e.procs[p]; pr.heldRecv {
		e.wake(p)
	}
}
