package replay

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/trace"
)

// apply applies the effects fx of input in, in order. res collects the
// judgement of an InRecv. It never calls the algorithm: everything an
// effect needs is in the effect.
func (e *engine) apply(in *Input, fx []Effect, res *int) error {
	p := int32(in.P)
	for i := range fx {
		f := &fx[i]
		var err error
		switch f.Kind {
		case EffCheckpoint:
			err = e.checkpoint(p, f)
		case EffSkip:
			r := e.emit(trace.CheckpointSkipped, p)
			r.Next, r.Sn, r.Reason = orNone(f.Next), orNone(f.Sn), f.Reason
		case EffLog:
			err = e.logged(p, f)
		case EffDeliver, EffDiscard, EffHold:
			if in.Kind != InRecv || res == nil || *res != resNone {
				return fmt.Errorf("replay: algorithm %s: judgement outside a receive", e.alg.Name())
			}
			*res = e.judged(in, f)
		case EffControl:
			err = e.sendControl(p, f)
		case EffRestart:
			if in.Kind != InRestart || i != 0 {
				return fmt.Errorf("replay: algorithm %s: EffRestart outside a restart", e.alg.Name())
			}
			err = e.restore(p, f, true)
		case EffRollback:
			if in.Kind == InRestart && i == 0 {
				return fmt.Errorf("replay: algorithm %s: restart must begin with EffRestart", e.alg.Name())
			}
			err = e.restore(p, f, false)
		case EffHoldProcess:
			e.holdProcess(p, f)
		case EffResume:
			e.resume(p)
		case EffResend:
			err = e.resend(p, f)
		case EffStable:
			err = e.stabilize(f)
		case EffPiggyback:
			return fmt.Errorf("replay: algorithm %s: piggyback outside a send", e.alg.Name())
		default:
			return fmt.Errorf("replay: algorithm %s: unknown effect %v", e.alg.Name(), f.Kind)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// checkpoint applies EffCheckpoint.
func (e *engine) checkpoint(p int32, f *Effect) error {
	pr := &e.procs[p]
	if n := len(pr.ckpts); f.Ckpt <= 0 || (n > 0 && f.Ckpt <= pr.ckpts[n-1].id) {
		return fmt.Errorf("replay: algorithm %s: checkpoint id %d of %s not increasing", e.alg.Name(), f.Ckpt, e.name(p))
	}
	// Stored before the event is: the vector it replaces is dropped once
	// the events before this one are taken.
	vt := e.storeVT(p, f.VT)
	r := e.emit(trace.Checkpoint, p)
	r.Ckpt, r.CkptType, r.Pos, r.Sn, r.VT, r.Failure = f.Ckpt, f.CkptType, pr.pos(), orNone(f.Sn), vt, f.Failure.Run()
	pr.ckpts = append(pr.ckpts, ckptRec{id: f.Ckpt, pos: pr.pos()})
	return nil
}

// logged applies EffLog.
func (e *engine) logged(p int32, f *Effect) error {
	if f.Copy <= NoCopy || int(f.Copy) >= len(e.copies) {
		return fmt.Errorf("replay: algorithm %s logged unknown copy %d", e.alg.Name(), f.Copy)
	}
	cr := &e.copies[f.Copy]
	r := e.emit(trace.Log, p)
	r.Msg, r.Copy, r.Op = cr.msg, cr.no, f.Op
	return nil
}

// holdProcess applies EffHoldProcess: p runs no op until EffResume. A
// hold that says what it waits for is a block: recorded as a `block`
// event, and it pauses p's computation (resume). A process already held
// is not held twice.
func (e *engine) holdProcess(p int32, f *Effect) {
	pr := &e.procs[p]
	if pr.heldProc {
		return
	}
	if f.Until != "" {
		r := e.emit(trace.Block, p)
		r.Until, r.Failure = e.out.AddString(f.Until), f.Failure.Run()
		pr.paused, pr.pausedAt = true, e.now
	}
	pr.heldProc = true
	pr.stale()
	pr.blocked = false
}

// resume applies EffResume. After a block, p's computation resumes where
// it stopped: its next op becomes ready as late as the block lasted (the
// gap it had already waited is kept). After another hold (PK's, until
// its token returns), SPEC §3's rule: the next op is ready a whole gap
// after now (or after p's last op, if that is later).
//
// A block pauses rather than restarts the gap because, under the
// restart rule, a process whose next op is further away than the time
// between two blocks would never run it while blocks go on: coordinated
// checkpointing's rounds starved it (docs/replay.md, TestBlockPauses).
func (e *engine) resume(p int32) {
	pr := &e.procs[p]
	if !pr.heldProc {
		return
	}
	pr.heldProc = false
	e.emit(trace.Resume, p)
	switch {
	case pr.paused:
		pr.exec += e.now - pr.pausedAt
		pr.paused = false
	case pr.exec < e.now:
		pr.exec = e.now
	}
	pr.stale()
	e.schedule(p)
}

// resend applies EffResend: the live send at op f.Op of p transmits a new
// copy that repeats the one it sent.
func (e *engine) resend(p int32, f *Effect) error {
	pr := &e.procs[p]
	if f.Op < 0 || f.Op >= pr.pos() || pr.live[f.Op] == NoCopy {
		return fmt.Errorf("replay: algorithm %s: %s resends op %d, which is not a live send", e.alg.Name(), e.name(p), f.Op)
	}
	of := pr.live[f.Op]
	cr := e.copies[of]
	if err := e.usable(cr.pb, "resends"); err != nil {
		return err
	}
	e.transmit(p, cr.op, cr.msg, cr.to, cr.pb, of, f.Failure, "")
	return nil
}

// judged applies a receive's judgement and returns its result.
func (e *engine) judged(in *Input, f *Effect) int {
	p := int32(in.P)
	pr := &e.procs[p]
	c := in.Copy
	cr := &e.copies[c]
	if f.Kind != EffHold {
		e.unholdRecv(p, f.Failure)
	}
	switch f.Kind {
	case EffDeliver:
		if in.Via == trace.ViaNet {
			e.boxRemove(c)
			cr.state = copyTaken
		}
		e.receipt(p, in.Op, c, in.Via)
		pr.blocked = false
		pr.exec = e.now
		e.schedule(p)
		return resDeliver
	case EffDiscard:
		if in.Via == trace.ViaNet {
			e.boxRemove(c)
			cr.state = copyDiscarded
		}
		r := e.emit(trace.Discard, p)
		r.Msg, r.Copy, r.Reason, r.Failure = cr.msg, cr.no, f.Reason, f.Failure.Run()
		return resDiscard
	case EffHold:
		pr.blocked = false
		// Judged again, a held receive holds on for the next recovery it
		// waits for: the hold ended when the one it named was applied
		// (SPEC §4.2 case 1 waits for every such recovery), so a new
		// hold says what it waits for now, at the instant it examined
		// its message again (the checker times the receive from there).
		if !pr.heldRecv || f.Failure != pr.holdFor {
			pr.heldRecv, pr.holdFor = true, f.Failure
			r := e.emit(trace.Hold, p)
			r.Msg, r.Until, r.Failure = cr.msg, e.out.AddString(f.Until), f.Failure.Run()
		}
	}
	return resHold
}

// unholdRecv ends p's held receive, if any, writing `unhold` for the
// message of the receive held, p's next op: a judgement other than hold,
// or a restore, ends it.
func (e *engine) unholdRecv(p int32, failure Seq) {
	if pr := &e.procs[p]; pr.heldRecv {
		pr.heldRecv = false
		r := e.emit(trace.Unhold, p)
		r.Msg, r.Failure = e.tr.Events[pr.prog[pr.pos()]].Msg, failure.Run()
	}
}

// receipt writes receive op k of p taking copy c from via, and makes
// the op live.
func (e *engine) receipt(p, k int32, c CopyID, via trace.Via) {
	pr := &e.procs[p]
	cr := &e.copies[c]
	r := e.emit(trace.Recv, p)
	r.Msg, r.Peer, r.Op, r.Copy, r.Via = cr.msg, cr.from, k, cr.no, via
	r.Label = e.out.AddString(e.tr.Label(&e.tr.Events[pr.prog[k]]))
	pr.live = append(pr.live, c)
}
