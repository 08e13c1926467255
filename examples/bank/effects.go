//go:build unix

package main

import (
	"fmt"
	"os"
	"slices"
	"syscall"
	"time"

	json "github.com/goccy/go-json"

	"github.com/ckpt-dev/ckpt/record"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// transfer is a data message's payload.
type transfer struct {
	Acct   int   `json:"acct"`
	Amount int64 `json:"amount"`
}

// step hands MS one input about copy c (nil if none), executes its
// effects and commits the step. It returns how MS judged the copy.
func (b *branch) step(in *replay.Input, c *copyIn) (replay.EffectKind, error) {
	b.cur.In = in
	b.fx = b.ms.Step(in, b.fx[:0])
	var judged replay.EffectKind
	for i := range b.fx {
		f := &b.fx[i]
		if err := b.apply(f, c); err != nil {
			return 0, err
		}
		if f.Kind == replay.EffDeliver || f.Kind == replay.EffDiscard || f.Kind == replay.EffHold {
			judged = f.Kind
		}
	}
	return judged, b.commit()
}

// commit ends a step: its events are written to the recording, then its
// journal line, then its frames go out (journal.go).
func (b *branch) commit() error {
	if err := b.rec.Flush(); err != nil {
		return err
	}
	e := b.cur
	e.Rec = b.rec.Size()
	b.cur = entry{}
	if err := b.j.append(&e); err != nil {
		return err
	}
	if err := b.redo(&e); err != nil {
		return err
	}
	if b.skipped && b.me == 0 && b.restarts == 0 {
		// --nolog: P0 crashes right after the first receipt MS wanted
		// logged, so that its loss is certain, whatever the schedule.
		// (Only P0: another branch's crash could reach P1 before its
		// first send and change what P0 must log.)
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	return nil
}

// redo sends a committed step's frames and takes.
func (b *branch) redo(e *entry) error {
	for _, f := range e.Out {
		if err := b.send(f); err != nil {
			return err
		}
	}
	for _, t := range e.Takes {
		if err := b.send(&frame{Kind: kTake, From: t.From, Tx: t.Tx}); err != nil {
			return err
		}
	}
	return nil
}

// apply executes one effect of MS for real.
func (b *branch) apply(f *replay.Effect, c *copyIn) error {
	switch f.Kind {
	case replay.EffCheckpoint:
		s := b.st.clone()
		b.snaps[f.Ckpt] = s
		b.cur.Snaps = append(b.cur.Snaps, snap{f.Ckpt, s})
		ck := record.Ckpt{ID: f.Ckpt, Type: f.CkptType, Sn: f.Sn}
		if f.Failure != 0 {
			fl := b.failure(f.Failure)
			ck.For = &fl
		}
		return b.rec.CheckpointTaken(ck)
	case replay.EffSkip:
		return b.rec.Skipped(f.Next, f.Sn)
	case replay.EffLog:
		if b.cfg.NoLog {
			b.skipped = true
			return nil
		}
		b.logs[f.Copy] = c.wire
		b.cur.Logs = append(b.cur.Logs, logged{f.Copy, c.wire})
		return b.rec.Log(c.wire)
	case replay.EffDeliver:
		return b.deliver(c, f)
	case replay.EffDiscard:
		return b.discard(c, f)
	case replay.EffHold:
		if b.held {
			return nil
		}
		b.held = true
		return b.rec.Hold(c.msg, f.Until, b.failure(f.Failure))
	case replay.EffControl:
		to := b.names[f.To]
		wire, err := b.rec.ControlSend(to, f.Control, f.Body, b.failure(f.Failure))
		b.cur.Out = append(b.cur.Out, &frame{Kind: kControl, To: to, Wire: wire})
		return err
	case replay.EffRestart, replay.EffRollback:
		return b.restore(f)
	}
	return fmt.Errorf("MS asks for %v, which the bank does not do", f.Kind)
}

// deliver completes the receive with copy c: the transfer is credited.
func (b *branch) deliver(c *copyIn, f *replay.Effect) error {
	if err := b.unhold(c.msg, f.Failure); err != nil {
		return err
	}
	var payload []byte
	var err error
	if c.via == trace.ViaLog {
		payload, err = b.rec.Replay(c.wire)
		delete(b.replayed, b.st.Pos)
	} else {
		payload, err = b.rec.Recv(c.wire)
		b.take(c)
	}
	var t transfer
	if err == nil {
		err = json.Unmarshal(payload, &t)
	}
	b.st.Bal[t.Acct] += t.Amount
	b.st.Pos++
	b.exec, b.blocked = time.Now(), false
	return err
}

// discard drops copy c (MS: stale, its send was undone).
func (b *branch) discard(c *copyIn, f *replay.Effect) error {
	if err := b.unhold(c.msg, f.Failure); err != nil {
		return err
	}
	if c.via == trace.ViaLog {
		delete(b.replayed, b.st.Pos)
	} else {
		b.take(c)
	}
	return b.rec.Discard(c.wire, f.Reason, b.failure(f.Failure))
}

// take removes copy c from the mailbox for good, once the step commits.
func (b *branch) take(c *copyIn) {
	b.box = slices.DeleteFunc(b.box, func(x *copyIn) bool { return x == c })
	b.cur.Takes = append(b.cur.Takes, c.ref)
}

func (b *branch) unhold(msg string, s replay.Seq) error {
	if !b.held {
		return nil
	}
	b.held = false
	return b.rec.Unhold(msg, b.failure(s))
}

// restore restarts or rolls the branch back to checkpoint f.Ckpt, with
// the message log MS replays from it.
func (b *branch) restore(f *replay.Effect) error {
	if b.held {
		if err := b.unhold(b.prog[b.st.Pos].Msg, f.Failure); err != nil {
			return err
		}
	}
	s, ok := b.snaps[f.Ckpt]
	if !ok || s.Pos != f.Pos {
		return fmt.Errorf("MS restores checkpoint %d at op %d, which the branch does not hold", f.Ckpt, f.Pos)
	}
	b.st = s.clone()
	clear(b.replayed)
	for _, l := range f.Replay {
		if _, ok := b.logs[l.Copy]; ok {
			b.replayed[l.Op] = l.Copy
		}
	}
	b.exec, b.blocked = time.Now(), false
	r := record.Restore{Ckpt: f.Ckpt, Pos: f.Pos, Inc: f.Inc, Cause: f.Cause, For: b.failure(f.Failure)}
	if f.Kind == replay.EffRestart {
		return b.rec.Restart(r)
	}
	return b.rec.Rollback(r)
}

func (s state) clone() state { return state{Pos: s.Pos, Bal: slices.Clone(s.Bal)} }
