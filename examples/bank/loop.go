//go:build unix

package main

import (
	"fmt"
	"time"

	json "github.com/goccy/go-json"

	"github.com/ckpt-dev/ckpt/record"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// loop runs the branch until the driver stops it: timer ticks and ops
// when they are due (a tick first when both are), frames as they come.
// Due times, not the order in which goroutines wake, decide what comes
// first, so a late process still runs its op before a later tick.
func (b *branch) loop() error {
	for {
		now := time.Now()
		tick := b.nextTick()
		due, ready := b.due()
		switch {
		case !tick.After(now) && (!ready || !tick.After(due)):
			b.ticks++
			if _, err := b.step(&replay.Input{Kind: replay.InTick, P: b.me, Pos: b.st.Pos}, nil); err != nil {
				return err
			}
			continue
		case ready && !due.After(now):
			if err := b.runOp(); err != nil {
				return err
			}
			continue
		}
		var f *frame
		select {
		case f = <-b.in:
		default:
			if !ready && b.reported != b.handled {
				b.reported = b.handled
				if err := b.send(&frame{Kind: kIdle, N: b.handled}); err != nil {
					return err
				}
			}
			wake := tick
			if ready && due.Before(wake) {
				wake = due
			}
			t := time.NewTimer(time.Until(wake))
			select {
			case f = <-b.in:
			case <-t.C:
			}
			t.Stop()
		}
		if f != nil {
			if stop, err := b.handle(f); stop || err != nil {
				return err
			}
		}
	}
}

// nextTick is when the timer ticks next: every Tick from the start,
// branch i offset by i/procs of it, so that the branches do not all
// checkpoint at once (and P0 ticks as it starts).
func (b *branch) nextTick() time.Time {
	period := b.cfg.Tick
	offset := period * time.Duration(b.cfg.Index) / time.Duration(b.cfg.Procs)
	return b.start.Add(offset + period*time.Duration(b.ticks))
}

// due says when the next op is ready: Gap after the last op ran or the
// branch was restored (the first op at once); not at all when the
// program is done or its receive waits.
func (b *branch) due() (time.Time, bool) {
	if int(b.st.Pos) >= len(b.prog) || b.held || b.blocked {
		return time.Time{}, false
	}
	if b.st.Pos == 0 {
		return b.exec, true
	}
	return b.exec.Add(b.cfg.Gap), true
}

// runOp runs the next op of the program.
func (b *branch) runOp() error {
	o := &b.prog[b.st.Pos]
	switch o.Kind {
	case trace.Send:
		return b.sendOp(o)
	case trace.Recv:
		return b.recvOp(o)
	}
	if err := b.rec.Internal("audit"); err != nil {
		return err
	}
	b.st.Pos++
	b.exec = time.Now()
	return b.commit()
}

// sendOp debits the account and sends the transfer with MS's piggyback.
func (b *branch) sendOp(o *op) error {
	in := replay.Input{Kind: replay.InSend, P: b.me, Pos: b.st.Pos, Op: b.st.Pos, Peer: replay.Proc(o.Peer)}
	b.fx = b.ms.Step(&in, b.fx[:0])
	if len(b.fx) != 1 || b.fx[0].Kind != replay.EffPiggyback {
		return fmt.Errorf("MS answers a send with %v", b.fx)
	}
	pb := b.fx[0].PB
	payload, err := json.Marshal(transfer{Acct: o.ToAcct, Amount: o.Amount})
	if err != nil {
		return err
	}
	to := b.names[o.Peer]
	wire, err := b.rec.SendPB(to, &pb, payload)
	if err != nil {
		return err
	}
	if h, _, _ := record.Parse(wire); h.Msg != o.Msg {
		return fmt.Errorf("the recorder names op %d's message %s, the program %s", b.st.Pos, h.Msg, o.Msg)
	}
	b.st.Bal[o.Acct] -= o.Amount
	b.st.Pos++
	b.exec = time.Now()
	b.cur.Out = append(b.cur.Out, &frame{Kind: kData, To: to, Wire: wire})
	return b.commit()
}

// recvOp offers the receive its candidates, as the replay engine does:
// the replay log's copy first, then the mailbox's copies of its message
// in arrival order, until MS delivers one or holds the receive. With
// none left it waits for the next copy.
func (b *branch) recvOp(o *op) error {
	var cands []*copyIn
	if id, ok := b.replayed[b.st.Pos]; ok {
		h, _, err := record.Parse(b.logs[id])
		if err != nil {
			return err
		}
		cands = append(cands, &copyIn{ref: copyRef{h.From, h.Tx}, msg: h.Msg, wire: b.logs[id], pb: h.PB, via: trace.ViaLog, id: id})
	}
	for _, c := range b.box {
		if c.msg == o.Msg {
			cands = append(cands, c)
		}
	}
	for _, c := range cands {
		if c.via == trace.ViaNet {
			c.id, b.nextCopy = b.nextCopy, b.nextCopy+1
		}
		in := &replay.Input{Kind: replay.InRecv, P: b.me, Pos: b.st.Pos, Op: b.st.Pos, Peer: b.proc(c.ref.From),
			Copy: c.id, Via: c.via, PB: c.pb}
		judged, err := b.step(in, c)
		if err != nil || judged != replay.EffDiscard {
			return err
		}
	}
	b.blocked = true
	return nil
}

// handle takes one frame from the relay; it reports whether to stop.
func (b *branch) handle(f *frame) (bool, error) {
	b.handled++
	switch f.Kind {
	case kData:
		b.arrive(f)
	case kControl:
		return false, b.control(f)
	case kStop:
		return true, b.finish()
	}
	return false, nil
}

// control hands MS a Rollback request.
func (b *branch) control(f *frame) error {
	h, err := b.rec.ControlRecv(f.Wire)
	if err != nil {
		return err
	}
	b.cur.Takes = append(b.cur.Takes, copyRef{h.From, h.Tx})
	in := &replay.Input{Kind: replay.InControl, P: b.me, Pos: b.st.Pos, Peer: b.proc(h.From),
		Control: h.Control, Body: h.Body, Failure: seqOf(h.Failure, b.names)}
	if _, err := b.step(in, nil); err != nil {
		return err
	}
	if b.held { // a held receive tries again after every request
		return b.recvOp(&b.prog[b.st.Pos])
	}
	return nil
}

// arrive puts a data copy in the mailbox, unless a step the journal
// holds consumed it already.
func (b *branch) arrive(f *frame) {
	h, _, err := record.Parse(f.Wire)
	must(err)
	if b.seen(h) {
		return
	}
	b.box = append(b.box, &copyIn{ref: copyRef{h.From, h.Tx}, msg: h.Msg, wire: f.Wire, pb: h.PB, via: trace.ViaNet})
	if b.blocked && int(b.st.Pos) < len(b.prog) && b.prog[b.st.Pos].Msg == h.Msg {
		b.blocked = false
	}
}

// finish records how the branch ended and what is left in its mailbox,
// and reports its balances.
func (b *branch) finish() error {
	state, msg := trace.StateDone, ""
	if o := b.st.Pos; int(o) < len(b.prog) {
		state = trace.StateBlocked
		if b.held {
			state = trace.StateHeld
		}
		if b.prog[o].Kind == trace.Recv {
			msg = b.prog[o].Msg
		}
	}
	err := b.rec.End(state, msg)
	for _, c := range b.box {
		if err == nil {
			err = b.rec.Unconsumed(c.wire)
		}
	}
	if err == nil {
		err = b.rec.Close()
	}
	if err != nil {
		return err
	}
	return b.send(&frame{Kind: kBye, Bal: b.st.Bal, State: state.String()})
}
