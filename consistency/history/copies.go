package history

import (
	"slices"

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
	// box is, while the model is built, where each copy is: in its
	// receiver's mailbox since it was sent (inBox), or put back there by a
	// rollback under the algorithm's rule (putBack), maybe there (unsure:
	// an undone receipt may or may not have put it back — a foreign
	// algorithm, or a PK copy whose vector is unknown — and nobody who
	// takes or lists it is judged), or taken by the receive, discard or
	// unconsumed record at that seq (or never sent: None).
	box []int32
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

// CopyTo returns the process copy ci was sent to, or None.
func (m *Model) CopyTo(ci int32) int32 {
	if s := m.Copies.Send[ci]; s != None {
		return m.Run.Events[s].Peer
	}
	return None
}

// reserve sizes the tables for n messages and about as many copies.
func (c *Copies) reserve(n int) {
	c.first = slices.Repeat([]int32{None}, n)
	c.count = make([]int32, n)
	c.Send = make([]int32, 0, n)
	c.Orig = make([]int32, 0, n)
	c.box = make([]int32, 0, n)
}

// add appends the next copy of message m and returns its index.
func (c *Copies) add(m int32) int32 {
	i := int32(len(c.Send))
	c.Send = append(c.Send, None)
	c.Orig = append(c.Orig, None)
	c.box = append(c.box, None)
	c.count[m]++
	if c.count[m] == 1 {
		c.first[m] = i
	} else {
		put(&c.later, laterKey(m, c.count[m]), i)
	}
	return i
}

// Where a copy is (Copies.box) when no event has taken it.
const (
	inBox   int32 = -3
	unsure  int32 = -4
	putBack int32 = -5
)

// MayHold reports whether copy ci is (or may be) in its mailbox.
func (b *Builder) MayHold(ci int32) bool { return b.m.Copies.box[ci] <= inBox }

// InMailbox reports whether copy ci is surely in its receiver's mailbox.
func (b *Builder) InMailbox(ci int32) bool {
	return b.m.Copies.box[ci] == inBox || b.m.Copies.box[ci] == putBack
}

// WasPutBack reports whether copy ci is in its mailbox because a
// rollback put it back there under the algorithm's rule.
func (b *Builder) WasPutBack(ci int32) bool { return b.m.Copies.box[ci] == putBack }

// TakenBy returns the seq of the receive, discard or unconsumed record
// that took copy ci last, or None.
func (b *Builder) TakenBy(ci int32) int32 {
	if t := b.m.Copies.box[ci]; t >= 0 {
		return t
	}
	return None
}

// CopyCount returns how many copies of message m the run has numbered.
func (b *Builder) CopyCount(m int32) int32 {
	if m < 0 || int(m) >= len(b.m.Copies.count) {
		return 0
	}
	return b.m.Copies.count[m]
}

// transmit registers the copy a send or resend event transmits and
// returns its index, or -1 when the event names no usable copy. Copies
// number every transmission of a message id in order (SPEC §6): a number
// that repeats one is taken as the next, one that skips some pads the
// table — unless it is beyond the events so far (a single forged "copy":
// 100000000 took gigabytes).
func (b *Builder) transmit(seq int32, e *trace.RunEvent) int32 {
	m, cp := e.Msg, e.Copy
	if m < 0 || int(m) >= len(b.m.Run.Msgs) || cp <= 0 {
		return -1
	}
	c := &b.m.Copies
	for int32(len(c.first)) <= m {
		c.first = append(c.first, None)
		c.count = append(c.count, 0)
	}
	if n := c.count[m]; cp > n+1 {
		if cp > b.n {
			return -1
		}
		for c.count[m] < cp {
			c.add(m)
		}
	} else if cp == n+1 {
		c.add(m)
	}
	i := c.Index(m, cp)
	c.Send[i] = seq
	b.m.Copies.box[i] = inBox
	return i
}

// take records that the receive or discard at seq took copy ci (none
// when the copy was sent to another process). A receive of a copy no
// longer in the mailbox takes it a second time (Takes).
func (b *Builder) take(seq int32, e *trace.RunEvent, ci int32) {
	if to := b.m.CopyTo(ci); to != None && to != e.P {
		return
	}
	if !b.MayHold(ci) && e.Kind != trace.Discard {
		b.m.Takes = append(b.m.Takes, Take{Copy: ci, First: b.TakenBy(ci), Second: seq})
	}
	b.m.Copies.box[ci] = seq
}
