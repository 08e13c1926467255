package replay

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/trace"
)

// swapHeap is the textbook heap the queue's hole-sifting one replaced:
// the reference the queue must match item for item, equal items
// included, since the order it pops equal items in is part of the run.
type swapHeap []item

func (q *swapHeap) push(it item) {
	h := append(*q, it)
	for i := len(h) - 1; i > 0; {
		j := (i - 1) / 2
		if !h[i].less(&h[j]) {
			break
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
	*q = h
}

func (q *swapHeap) pop() item {
	h := *q
	top, n := h[0], len(h)-1
	h[0] = h[n]
	h = h[:n]
	for i := 0; ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h[r].less(&h[l]) {
			m = r
		}
		if !h[m].less(&h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	*q = h
	return top
}

// TestQueueIsTheSwappingHeap pushes and pops at random, with few
// distinct keys so that equal items abound (they differ in ref, which
// less ignores), and asks the queue for the swapping heap's items in
// its order.
func TestQueueIsTheSwappingHeap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var q queue
		var ref swapHeap
		steps := rapid.IntRange(1, 300).Draw(t, "steps")
		for k := range steps {
			if len(q) > 0 && rapid.IntRange(0, 2).Draw(t, "pop") == 0 {
				got, want := q.pop(), ref.pop()
				if got != want {
					t.Fatalf("step %d: popped %+v, the swapping heap %+v", k, got, want)
				}
				continue
			}
			it := item{
				t:     trace.Time(rapid.IntRange(0, 3).Draw(t, "t")),
				class: uint8(rapid.IntRange(0, 2).Draw(t, "class")),
				key:   int64(rapid.IntRange(0, 3).Draw(t, "key")),
				ref:   int32(k),
			}
			q.push(it)
			ref.push(it)
		}
		for len(ref) > 0 {
			if got, want := q.pop(), ref.pop(); got != want {
				t.Fatalf("draining: popped %+v, the swapping heap %+v", got, want)
			}
		}
		if len(q) != 0 {
			t.Fatalf("queue holds %d items after the heap drained", len(q))
		}
	})
}
