package pk

import (
	"slices"

	"github.com/ckpt-dev/ckpt/trace"
)

// A token carries the identities of every receipt live in its announcer's
// recovered state (SPEC §5). Copying them per failure made replay
// quadratic in failures (10^5 failures of a 10^5-op trace: one list of
// ~8,000 identities each, sorted and kept in the run), so every delivery
// is recorded once, as a node of a persistent stack: a process's live
// receipts at any moment are the chain of parents from its top node, and a
// token's set is a view — the announcer's top node and the clock — that
// lists the identities only when the run is written.

// receiptLog records every delivery of every process as a node.
type receiptLog struct {
	nodes []rnode
	// sum[n] and size[n] are the multiset hash (trace.IdentityHash) and
	// the size of the chain from node n down: a view's SetHash in O(1).
	sum  []uint64
	size []int32
	// clock counts pushes and pops: a node is live at time t iff
	// created ≤ t < popped.
	clock int32
	// lastOf[m] is the latest node of message m, or None; earlier ones
	// are linked by prevSame.
	lastOf []int32
}

// rnode is one delivery: the identity received and the stack below it.
type rnode struct {
	msg, inc        int32
	parent          int32 // the node below it on its process's stack, or None
	prevSame        int32 // the previous node of the same message, or None
	created, popped int32
}

const never = int32(1<<31 - 1)

// newReceiptLog makes the log of a trace of msgs messages, with room for
// a delivery of each and a sixteenth more (recovery delivers some
// again): grown by append instead, the three tables allocated about five
// times their final size, a tenth of a PK replay's allocations at 10^6
// events. They hold no pointers, so the room not used costs address
// space, not memory.
func newReceiptLog(msgs int) receiptLog {
	n := msgs + msgs/16 + 16
	return receiptLog{lastOf: slices.Repeat([]int32{trace.None}, msgs), nodes: make([]rnode, 0, n), sum: make([]uint64, 0, n), size: make([]int32, 0, n)}
}

// push records a delivery of identity (msg, inc) on top of node parent.
func (l *receiptLog) push(msg, inc, parent int32) int32 {
	l.clock++
	n := rnode{msg: msg, inc: inc, parent: parent, prevSame: trace.None, created: l.clock, popped: never}
	if msg >= 0 && int(msg) < len(l.lastOf) {
		n.prevSame = l.lastOf[msg]
		l.lastOf[msg] = int32(len(l.nodes))
	}
	h, k := trace.IdentityHash(trace.Identity{Msg: msg, Inc: inc}), int32(1)
	if parent != trace.None {
		h, k = h+l.sum[parent], k+l.size[parent]
	}
	l.nodes = append(l.nodes, n)
	l.sum, l.size = append(l.sum, h), append(l.size, k)
	return int32(len(l.nodes) - 1)
}

// pop records that node id left its process's live receipts.
func (l *receiptLog) pop(id int32) {
	l.clock++
	l.nodes[id].popped = l.clock
}

// view returns the set of receipts of the stack whose top is node top,
// now.
func (l *receiptLog) view(top int32) *receiptView {
	return &receiptView{log: l, top: top, at: l.clock}
}

// receiptView is a process's live receipts at one moment: a token's
// received set. It implements trace.ReceiptSet.
type receiptView struct {
	log *receiptLog
	top int32
	at  int32
}

// Identities implements trace.ReceiptSet: the chain from the top node,
// sorted by message (a live history receives each message once). The
// list is made anew at each call, never kept: the run holds every
// token's view, and keeping each list made replay -o of 3*10^4 failures
// of 4 processes hold 334 MB of them (10^5: 10 GB).
func (v *receiptView) Identities() []trace.Identity {
	ids := []trace.Identity{}
	v.WalkIdentities(func(id trace.Identity) { ids = append(ids, id) })
	slices.SortFunc(ids, func(a, b trace.Identity) int { return int(a.Msg) - int(b.Msg) })
	return ids
}

// WalkIdentities implements trace.ReceiptWalker: the chain from the top
// node, without making the list.
func (v *receiptView) WalkIdentities(yield func(trace.Identity)) {
	for n := v.top; n != trace.None; n = v.log.nodes[n].parent {
		yield(trace.Identity{Msg: v.log.nodes[n].msg, Inc: v.log.nodes[n].inc})
	}
}

// SetHash implements trace.ReceiptHasher: the chain's sums, kept per
// node when it was pushed.
func (v *receiptView) SetHash() (uint64, int) {
	if v.top == trace.None {
		return 0, 0
	}
	return v.log.sum[v.top], int(v.log.size[v.top])
}

// HasIdentity implements trace.ReceiptLookup: whether the set holds id.
func (v *receiptView) HasIdentity(id trace.Identity) bool {
	if id.Msg < 0 || int(id.Msg) >= len(v.log.lastOf) {
		return false
	}
	for n := v.log.lastOf[id.Msg]; n != trace.None; n = v.log.nodes[n].prevSame {
		x := &v.log.nodes[n]
		if x.inc == id.Inc && x.created <= v.at && v.at < x.popped {
			return true
		}
	}
	return false
}

// after reports whether node n was pushed after the view was taken.
func (v *receiptView) after(n int32) bool { return v.log.nodes[n].created > v.at }

// outstanding lists, per (sender, receiver), the messages whose live send
// is not matched by a live receipt of the same identity: the only sends a
// token can make its receiver resend (every other one the announcer's
// recovered state holds, unless it received it after its restart, which
// the token handler looks up separately). Intrusive doubly linked lists
// over messages.
type outstanding struct {
	next, prev []int32 // per message; prev is notListed when unlisted
	head       map[[2]int32]int32
}

const notListed = -2

func newOutstanding(msgs int) outstanding {
	return outstanding{next: make([]int32, msgs), prev: slices.Repeat([]int32{notListed}, msgs), head: map[[2]int32]int32{}}
}

// set lists or unlists message m of channel (from, to).
func (o *outstanding) set(m, from, to int32, listed bool) {
	if m < 0 || int(m) >= len(o.prev) || (o.prev[m] != notListed) == listed {
		return
	}
	k := [2]int32{from, to}
	if listed {
		h, ok := o.head[k]
		if !ok {
			h = trace.None
		}
		o.prev[m], o.next[m] = trace.None, h
		if h != trace.None {
			o.prev[h] = m
		}
		o.head[k] = m
		return
	}
	if o.prev[m] == trace.None {
		if o.next[m] == trace.None {
			delete(o.head, k)
		} else {
			o.head[k] = o.next[m]
		}
	} else {
		o.next[o.prev[m]] = o.next[m]
	}
	if o.next[m] != trace.None {
		o.prev[o.next[m]] = o.prev[m]
	}
	o.prev[m] = notListed
}

// list appends the messages listed for channel (from, to) to out.
func (o *outstanding) list(from, to int32, out []int32) []int32 {
	h, ok := o.head[[2]int32{from, to}]
	if !ok {
		return out
	}
	for m := h; m != trace.None; m = o.next[m] {
		out = append(out, m)
	}
	return out
}
