// Package rline computes the maximum consistent recovery line of
// checkpoints by rollback propagation (Wang 1997): starting from a bound
// per process, roll back every receiver of an orphan message to its latest
// checkpoint before the receipt until no orphan is left.
//
// Positions count program operations: a state at position k holds the
// first k ops of its process (ops 0 … k−1). A checkpoint's position is the
// number of ops completed when it was taken. A message is identified by
// the op index of its send in the sender's program and the op index of its
// receive in the receiver's program (the run's `op` field): a state at
// position k holds op i iff i < k. The inputs are plain numbers so that
// the checker (from a run's live history) and the baseline (from a trace)
// can both use it.
package rline

import (
	"fmt"
	"slices"
)

// None marks an absent index, as trace.None does.
const None = -1

// Msg is one message: the send is op SendOp of process From, the receive
// op RecvOp of process To (None if never received; such messages are
// ignored).
type Msg struct {
	From, SendOp int32
	To, RecvOp   int32
}

// Entry is one process's place on a recovery line.
type Entry struct {
	// Pos is the position the process ends at.
	Pos int32
	// Ckpt is the index of the checkpoint the process ends at, or None
	// when it keeps its starting state and that state is not a
	// checkpoint's position. A process that moved always ends on a
	// checkpoint.
	Ckpt int32
	// Moved reports whether propagation rolled the process back below
	// its starting bound.
	Moved bool
	// Undone is current − Pos: ops of the state at the failure instant
	// that the line discards.
	Undone int32
}

// Graph holds checkpoints and messages indexed for repeated propagation
// from different bounds (one per failure), so each query costs only what
// it rolls back, not the whole history.
type Graph struct {
	np    int32
	ckpts Checkpoints
	msgs  []Msg
	// out[off[p]:off[p+1]] are the messages p sent that are received
	// (indexes into msgs), by increasing send op.
	off []int32
	out []int32
}

// Checkpoints gives Line every process's checkpoints. Positions along a
// process's checkpoints never decrease, and the first (the initial one)
// is at 0.
type Checkpoints interface {
	// Latest returns p's latest checkpoint at position ≤ pos (pos ≥ 0):
	// a handle, which Line reports as Entry.Ckpt, and its position.
	// Within one Line, the positions asked of one process only
	// decrease, so a checkpoint chain can be walked with a cursor.
	Latest(p, pos int32) (h, at int32)
}

// Slices are checkpoint positions per process, in order, non-decreasing,
// the first at 0; a handle is an index into a process's slice.
type Slices [][]int32

// Latest implements Checkpoints by binary search.
func (s Slices) Latest(p, pos int32) (h, at int32) {
	cs := s[p]
	i, _ := slices.BinarySearch(cs, pos+1) // the first checkpoint after pos
	if i == 0 {
		return None, None
	}
	return int32(i - 1), cs[i-1]
}

// New indexes the checkpoints — ckpts[p] the positions of process p's
// checkpoints, non-decreasing, starting with the initial one at 0 — and
// the messages. The slices are kept, not copied: do not modify them while
// the Graph is in use. Bad input is an error, never a panic.
func New(ckpts [][]int32, msgs []Msg) (*Graph, error) {
	for p, cs := range ckpts {
		if len(cs) == 0 || cs[0] != 0 {
			return nil, fmt.Errorf("rline: process %d: the first checkpoint must be the initial one at position 0", p)
		}
		for x := 1; x < len(cs); x++ {
			if cs[x] < cs[x-1] {
				return nil, fmt.Errorf("rline: process %d: checkpoint %d at position %d before checkpoint %d at %d", p, x, cs[x], x-1, cs[x-1])
			}
		}
	}
	return NewOver(int32(len(ckpts)), Slices(ckpts), msgs)
}

// NewOver is New over np processes whose checkpoints ck gives: a caller
// that keeps them in another shape (a chain of held checkpoints) vouches
// for their order itself.
func NewOver(np int32, ck Checkpoints, msgs []Msg) (*Graph, error) {
	off := make([]int32, np+1)
	n := 0
	for i, m := range msgs {
		if m.From < 0 || m.From >= np || m.To < 0 || m.To >= np {
			return nil, fmt.Errorf("rline: message %d: process out of range", i)
		}
		if m.SendOp < 0 {
			return nil, fmt.Errorf("rline: message %d: negative send op %d", i, m.SendOp)
		}
		if m.RecvOp == None {
			continue
		}
		if m.RecvOp < 0 {
			return nil, fmt.Errorf("rline: message %d: negative receive op %d", i, m.RecvOp)
		}
		off[m.From+1]++
		n++
	}
	for p := int32(0); p < np; p++ {
		off[p+1] += off[p]
	}
	out := make([]int32, n)
	fill := slices.Clone(off[:np])
	for i, m := range msgs {
		if m.RecvOp == None {
			continue
		}
		out[fill[m.From]] = int32(i)
		fill[m.From]++
	}
	sortBySend(msgs, off, out)
	return &Graph{np: np, ckpts: ck, msgs: msgs, off: off, out: out}, nil
}

// sortBySend sorts each sender's messages, out[off[p]:off[p+1]], by send
// op, then index. Each is sorted as the keys send op << 32 | index: a
// sort of plain numbers, not of indexes compared through msgs (which took
// 2% of verify's CPU on the 10^6 trace, a sort per failure).
func sortBySend(msgs []Msg, off, out []int32) {
	var keys []uint64
	for p := range len(off) - 1 {
		seg := out[off[p]:off[p+1]]
		keys = keys[:0]
		for _, i := range seg {
			keys = append(keys, uint64(msgs[i].SendOp)<<32|uint64(i))
		}
		slices.Sort(keys)
		for k, key := range keys {
			seg[k] = int32(uint32(key))
		}
	}
}

// firstSentAt returns the index in p's sorted outgoing list of the first
// message sent at op ≥ pos.
func (g *Graph) firstSentAt(p, pos int32) int32 {
	seg := g.out[g.off[p]:g.off[p+1]]
	i, _ := slices.BinarySearchFunc(seg, pos, func(m, t int32) int {
		if g.msgs[m].SendOp < t {
			return -1
		}
		return 1
	})
	return g.off[p] + int32(i)
}

// Line propagates rollbacks from start and returns the maximum consistent
// recovery line, one entry per process.
//
// current[p] is p's state at the failure instant (the failed process: its
// state when it crashed); start[p] ≤ current[p] is where p starts (the
// failed process: its latest checkpoint at or before its restored state;
// every other process: current[p]). current must itself be a consistent
// state, as every real global state is: a message received in current is
// sent in current. Messages received at op ≥ current[receiver] are not
// received yet and play no part, so one Graph built over a whole history
// serves every failure. A process that must move goes to its latest
// checkpoint before the orphan receipt, and moves on checkpoints only.
//
// Cost: O(P log M + messages sent in the rolled-back regions + rollbacks ×
// log checkpoints).
func (g *Graph) Line(start, current []int32) ([]Entry, error) {
	np := g.np
	if int32(len(start)) != np || int32(len(current)) != np {
		return nil, fmt.Errorf("rline: %d processes, but %d starts and %d current states", np, len(start), len(current))
	}
	line := make([]Entry, np)
	// hi[p]: messages of p at indexes [firstSentAt(line), hi) are still to
	// be examined; those from hi on have been (or are not sent in current).
	hi := make([]int32, np)
	queue := make([]int32, 0, np)
	queued := make([]bool, np)
	for p := int32(0); p < np; p++ {
		if start[p] < 0 || start[p] > current[p] {
			return nil, fmt.Errorf("rline: process %d: start %d outside [0, current %d]", p, start[p], current[p])
		}
		c, at := g.ckpts.Latest(p, start[p])
		if at != start[p] {
			c = None
		}
		line[p] = Entry{Pos: start[p], Ckpt: c}
		hi[p] = g.firstSentAt(p, current[p])
		queue = append(queue, p)
		queued[p] = true
	}
	for len(queue) > 0 {
		a := queue[0]
		queue = queue[1:]
		queued[a] = false
		lo := g.firstSentAt(a, line[a].Pos)
		// Examine a's messages now sent after its line, newest first.
		for k := hi[a] - 1; k >= lo; k-- {
			m := &g.msgs[g.out[k]]
			b := m.To
			if m.RecvOp >= line[b].Pos {
				continue // not received on b's line: no orphan
			}
			c, at := g.ckpts.Latest(b, m.RecvOp)
			line[b] = Entry{Pos: at, Ckpt: c, Moved: true}
			if !queued[b] {
				queued[b] = true
				queue = append(queue, b)
			}
		}
		if lo < hi[a] {
			hi[a] = lo
		}
	}
	for p := range line {
		line[p].Undone = current[p] - line[p].Pos
	}
	return line, nil
}
