package consistency

import (
	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// Comparing every token's received set with the rebuilt one walked both
// sets per failure: O(failures × live receipts), 200 s for 10^5
// failures of a 10^5-op trace. Both sides have a multiset hash instead
// (trace.IdentityHash summed): the rebuilt one memoized per live op along
// the model's chains of predecessors, which are persistent as the
// algorithm's receipt stacks are, and the run's from its
// trace.ReceiptHasher in O(1) (an engine run) or by summing its list (a
// run read from a file, linear in the file). Equal sums and sizes accept
// the list; anything else takes the exact comparison, which also words
// the witness.

// chainMemo holds, per seq of a live op, the hash and size of the
// receipts on its chain down to op 0, and whether that chain is whole.
type chainMemo struct {
	sum   []uint64
	size  []int32
	state []int8 // 0 not yet, chainWhole, chainBroken
	stack []int32
}

const (
	chainWhole int8 = 1 + iota
	chainBroken
)

// sameHash reports whether body b's list has the hash and size of the
// receipts live in failure fi's process right after its restart; false
// when it differs or the rebuilt set cannot be hashed (the exact
// comparison then decides and says why).
func (j *tokenJudge) sameHash(fi int32, b *trace.ControlBody) bool {
	m := j.m
	f := &m.Failures[fi]
	pos := m.Event(f.Restart).Pos
	top := j.restartTop(fi)
	var want uint64
	var n int32
	switch {
	case top == history.None:
		if pos != 0 {
			return false
		}
	case m.Event(top).Op != pos-1:
		return false
	default:
		var ok bool
		if want, n, ok = j.chain(top); !ok {
			return false
		}
	}
	got, k := listedHash(b)
	return got == want && k == int(n)
}

// listedHash is the multiset hash and size of body b's list.
func listedHash(b *trace.ControlBody) (uint64, int) {
	if h, ok := b.Receipts.(trace.ReceiptHasher); ok {
		return h.SetHash()
	}
	var sum uint64
	ids := b.ReceivedList()
	for _, id := range ids {
		sum += trace.IdentityHash(id)
	}
	return sum, len(ids)
}

// chain returns the hash and size of the receipts on live op top's chain
// of predecessors, and whether it runs whole down to op 0 with every
// receipt's send known. Each seq is computed once: the walk stops at the
// first memoized one and fills the rest on the way back up.
func (j *tokenJudge) chain(top int32) (uint64, int32, bool) {
	c, m := &j.chains, j.m
	if c.state == nil {
		n := len(m.Run.Events)
		c.sum, c.size, c.state = make([]uint64, n), make([]int32, n), make([]int8, n)
	}
	stack := c.stack[:0]
	for s := top; s != history.None && c.state[s] == 0; s = m.Pred[s] {
		stack = append(stack, s)
	}
	for i := len(stack) - 1; i >= 0; i-- {
		s := stack[i]
		e, p := m.Event(s), m.Pred[s]
		var sum uint64
		var size int32
		// A gap shows as a missing predecessor: the model links an op
		// only to the op numbered just below it (history.Model.Pred), so
		// a chain is whole when it reaches op 0 with every link whole.
		whole := p == history.None && e.Op == 0
		if p != history.None {
			whole = c.state[p] == chainWhole
			sum, size = c.sum[p], c.size[p]
		}
		if whole && e.Kind == trace.Recv {
			if snd := m.SendOf[s]; snd == history.None {
				whole = false
			} else {
				sum += trace.IdentityHash(trace.Identity{Msg: e.Msg, Inc: m.Inc(m.Event(snd).P, snd)})
				size++
			}
		}
		c.sum[s], c.size[s], c.state[s] = sum, size, chainBroken
		if whole {
			c.state[s] = chainWhole
		}
	}
	c.stack = stack
	return c.sum[top], c.size[top], c.state[top] == chainWhole
}
