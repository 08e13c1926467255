package history

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/trace"
)

// Copies is the table of transmitted copies. Copy c of message m (copies
// number the transmissions of a message id 1, 2, …) has index Index(m, c);
// the table grows one copy at a time as sends arrive, without knowing the
// run's size. Most messages are sent once, so copy 1 is found by message
// and the others through a map.
type Copies struct {
	// Send is the send or resend event that transmitted the copy; None
	// for a number the run skipped.
	Send []int32
	// Orig is the op-level send the copy carries: the send itself, or
	// the live send a resend repeats.
	Orig []int32

	first []int32          // per message: index of copy 1, or None
	count []int32          // per message: copies numbered so far
	later map[uint64]int32 // (message, copy ≥ 2) → index
}

func laterKey(m, cp int32) uint64 { return uint64(uint32(m))<<32 | uint64(uint32(cp)) }

// Index returns the index of copy cp of message m, or -1 when the run
// has no such copy.
func (c *Copies) Index(m, cp int32) int32 {
	if m < 0 || int(m) >= len(c.first) || cp <= 0 || cp > c.count[m] {
		return -1
	}
	if cp == 1 {
		return c.first[m]
	}
	return c.later[laterKey(m, cp)]
}

// Len returns the number of copies.
func (c *Copies) Len() int { return len(c.Send) }

// Sender returns the process that sent message m's first copy, or None.
func (c *Copies) Sender(m int32, run *trace.Run) int32 {
	if m < 0 || int(m) >= len(c.first) {
		return None
	}
	for cp := int32(1); cp <= c.count[m]; cp++ {
		if s := c.Send[c.Index(m, cp)]; s != None {
			return run.Events[s].P
		}
	}
	return None
}

// CopyTo returns the process copy ci was sent to, or None.
func (m *Model) CopyTo(ci int32) int32 {
	if s := m.Copies.Send[ci]; s != None {
		return m.Run.Events[s].Peer
	}
	return None
}

// reserve sizes the tables for n messages and about as many copies.
func (c *Copies) reserve(n int) {
	c.first = make([]int32, n)
	c.count = make([]int32, n)
	for i := range c.first {
		c.first[i] = None
	}
	c.Send = make([]int32, 0, n)
	c.Orig = make([]int32, 0, n)
}

// grow makes room for message index m.
func (c *Copies) grow(m int32) {
	for int32(len(c.first)) <= m {
		c.first = append(c.first, None)
		c.count = append(c.count, 0)
	}
}

// add appends the next copy of message m and returns its index.
func (c *Copies) add(m int32) int32 {
	i := int32(len(c.Send))
	c.Send = append(c.Send, None)
	c.Orig = append(c.Orig, None)
	c.count[m]++
	if c.count[m] == 1 {
		c.first[m] = i
	} else {
		put(&c.later, laterKey(m, c.count[m]), i)
	}
	return i
}

// mailbox is the builder's view of where each copy is, one int32 per
// copy: in its receiver's mailbox since it was sent (inBox), or put back
// there by a rollback under the algorithm's rule (putBack), maybe there
// (unsure: an undone
// receipt may or may not have put it back — a foreign algorithm, or a PK
// copy whose vector is unknown — and the model judges nobody who takes
// or lists it), or taken by the receive or discard at that seq (or never
// sent: None).
type mailbox struct {
	state []int32
}

const (
	inBox   int32 = -3
	unsure  int32 = -4
	putBack int32 = -5
)

func (x *mailbox) reserve(n int) { x.state = make([]int32, 0, n) }
func (x *mailbox) add()          { x.state = append(x.state, None) }

// held reports whether copy ci is (or may be) in its mailbox.
func (x *mailbox) held(ci int32) bool { return x.state[ci] <= inBox }

// there reports whether copy ci is surely in its mailbox.
func (x *mailbox) there(ci int32) bool { return x.state[ci] == inBox || x.state[ci] == putBack }

// taker returns the seq of the receive or discard that took copy ci
// last, or None.
func (x *mailbox) taker(ci int32) int32 {
	if t := x.state[ci]; t >= 0 {
		return t
	}
	return None
}

// transmit registers the copy a send or resend event transmits and
// returns its index, or -1 when the event names no usable copy. A copy
// number that skips numbers, or repeats one, is an anomaly: copies
// number every transmission of a message id in order (SPEC §6).
func (b *Builder) transmit(seq int32, e *trace.RunEvent) int32 {
	m, cp := e.Msg, e.Copy
	if m < 0 || int(m) >= len(b.m.Run.Msgs) || cp <= 0 {
		return -1
	}
	c := &b.m.Copies
	c.grow(m)
	if n := c.count[m]; cp <= n {
		b.anomaly(CopyRenumbered, seq, func() (string, string) {
			return fmt.Sprintf("copy %d of %s is sent twice", cp, b.m.MsgName(m)),
				fmt.Sprintf("the send at seq %d numbers its copy %d, but %s already has copies 1 to %d: copy numbers count every transmission of a message id, so each is used once",
					seq, cp, b.m.MsgName(m), n)
		})
	} else if cp > n+1 {
		b.anomaly(CopyRenumbered, seq, func() (string, string) {
			return fmt.Sprintf("copy numbers of %s jump from %d to %d", b.m.MsgName(m), n, cp),
				fmt.Sprintf("the send at seq %d numbers its copy %d, but %s had only %d copies before: copy numbers count every transmission of a message id, so none is skipped",
					seq, cp, b.m.MsgName(m), n)
		})
		if cp > b.n {
			// More copies than the run has events so far: padding up to
			// it would take memory no run can justify (a single forged
			// "copy": 100000000 took gigabytes).
			return -1
		}
		for c.count[m] < cp {
			c.add(m)
			b.box.add()
		}
	} else {
		c.add(m)
		b.box.add()
	}
	i := c.Index(m, cp)
	c.Send[i] = seq
	b.box.state[i] = inBox
	return i
}

// take records that the receive or discard at seq, by process p, took
// copy ci. A net receive of a copy no longer in p's mailbox takes it a
// second time; a discard of one may have come from p's message log.
func (b *Builder) take(seq int32, e *trace.RunEvent, ci int32) {
	to := b.m.CopyTo(ci)
	if to != None && to != e.P {
		b.anomaly(WrongReceiver, seq, func() (string, string) {
			return fmt.Sprintf("%s takes copy %d of %s, which was sent to %s", b.m.ProcName(e.P), e.Copy, b.m.MsgName(e.Msg), b.m.ProcName(to)),
				fmt.Sprintf("copy %d of %s was sent to %s at seq %d, so it can reach no other mailbox, but %s takes it at seq %d",
					e.Copy, b.m.MsgName(e.Msg), b.m.ProcName(to), b.m.Copies.Send[ci], b.m.ProcName(e.P), seq)
		})
		return
	}
	box := &b.box
	if e.Via != trace.ViaLog {
		b.arrived(seq, e, ci) // a receive or a discard from the network
	}
	switch {
	case box.held(ci):
	case e.Kind == trace.Discard:
		b.discardTaken(seq, e, ci)
	default:
		b.m.Takes = append(b.m.Takes, Take{Copy: ci, First: box.taker(ci), Second: seq, Ambiguous: e.Via == trace.ViaNone})
	}
	box.state[ci] = seq
}

// discard takes the copy a discard judged.
func (b *Builder) discard(seq int32, e *trace.RunEvent, _ *procBuild) {
	if ci := b.m.Copies.Index(e.Msg, e.Copy); ci >= 0 && b.m.Copies.Send[ci] != None {
		b.take(seq, e, ci)
	}
}

// discardTaken judges a discard of a copy that is not in the mailbox. A
// copy nobody took is in no message log either (a malformed run); one
// taken before can come only from MS's replay log, as a receipt logged
// earlier, and MS drops the entry when it discards it: anything else
// breaks the algorithm's rules.
func (b *Builder) discardTaken(seq int32, e *trace.RunEvent, ci int32) {
	m := b.m
	t := b.box.taker(ci)
	if t == None {
		b.anomaly(DiscardNeverHeld, seq, func() (string, string) {
			return fmt.Sprintf("%s discards copy %d of %s it never had", m.ProcName(e.P), e.Copy, m.MsgName(e.Msg)),
				fmt.Sprintf("a discard judges a copy from the mailbox or the message log, but copy %d of %s is in neither at seq %d: it was sent at seq %d and nobody took it before",
					e.Copy, m.MsgName(e.Msg), seq, m.Copies.Send[ci])
		})
		return
	}
	if m.Alg == PK || m.Run.Events[t].Kind != trace.Recv {
		b.anomaly(DiscardNotInMailbox, seq, func() (string, string) {
			return fmt.Sprintf("%s discards copy %d of %s at seq %d, which its mailbox no longer holds", m.ProcName(e.P), e.Copy, m.MsgName(e.Msg), seq),
				fmt.Sprintf("the %s at seq %d took copy %d of %s and nothing put it back; only MS's replay log offers a copy again, once, as a receipt it logged", m.Event(t).Kind, t, e.Copy, m.MsgName(e.Msg))
		})
	}
}

// requeue puts the copy an undone receipt took back in its receiver's
// mailbox, or marks it unsure when whether it went back is unknown.
func (b *Builder) requeue(ci int32, sure bool) {
	if sure {
		b.box.state[ci] = putBack
	} else {
		b.box.state[ci] = unsure
	}
}

// unconsumed checks an `unconsumed` record: the copy it names must still
// be in that process's mailbox.
func (b *Builder) unconsumed(seq int32, e *trace.RunEvent) {
	ci := b.m.Copies.Index(e.Msg, e.Copy)
	if ci < 0 {
		if e.Copy <= 0 {
			return // no copy number: nothing to check
		}
		b.anomaly(UnconsumedNotInMailbox, seq, func() (string, string) {
			return fmt.Sprintf("%s lists copy %d of %s unconsumed, but it was never sent", b.m.ProcName(e.P), e.Copy, b.m.MsgName(e.Msg)),
				fmt.Sprintf("the unconsumed record at seq %d names copy %d of %s, and the run shows no such transmission", seq, e.Copy, b.m.MsgName(e.Msg))
		})
		return
	}
	if b.box.held(ci) && b.m.CopyTo(ci) == e.P {
		b.box.state[ci] = seq
		return
	}
	b.anomaly(UnconsumedNotInMailbox, seq, func() (string, string) {
		where := fmt.Sprintf("it was taken at seq %d and not put back", b.box.taker(ci))
		switch t := b.box.taker(ci); {
		case b.m.Copies.Send[ci] == None:
			where = "it was never sent"
		case b.m.CopyTo(ci) != e.P:
			where = fmt.Sprintf("it was sent to %s", b.m.ProcName(b.m.CopyTo(ci)))
		case t != None && b.m.Run.Events[t].Kind == trace.Unconsumed:
			where = fmt.Sprintf("the record at seq %d listed it already", t)
		}
		return fmt.Sprintf("%s lists copy %d of %s unconsumed, but its mailbox does not hold it", b.m.ProcName(e.P), e.Copy, b.m.MsgName(e.Msg)),
			fmt.Sprintf("the unconsumed record at seq %d says copy %d of %s is still in %s's mailbox, but %s", seq, e.Copy, b.m.MsgName(e.Msg), b.m.ProcName(e.P), where)
	})
}
