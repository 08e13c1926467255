package zgraph

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/ckpt-dev/ckpt/rline"
)

// opRef is one send or receipt of a process: op position and message.
type opRef struct {
	op   int32
	msg  int32
	recv bool
}

// pattern is the validated input: per process its sends and receipts in
// program order, and every message's receive interval.
type pattern struct {
	n     int
	ckpts [][]int32
	msgs  []rline.Msg
	ops   [][]opRef
	// recvIv[m] is m's interval at its receiver.
	recvIv []int32
}

// newPattern validates ckpts and msgs (CheckRDT's), and keeps per
// process the positions of its checkpoints after the initial one.
func newPattern(ckpts [][]int32, msgs []rline.Msg) (*pattern, error) {
	n := len(ckpts)
	after := make([][]int32, n)
	for p, cs := range ckpts {
		if len(cs) == 0 || cs[0] != 0 {
			return nil, fmt.Errorf("rdt: process %d: the first checkpoint must be the initial one at position 0", p)
		}
		for x, pos := range cs {
			if x > 0 && pos < cs[x-1] {
				return nil, fmt.Errorf("rdt: process %d: checkpoint %d at position %d: positions must be non-decreasing", p, x, pos)
			}
		}
		after[p] = cs[1:]
	}
	count, recvIv := make([]int32, n), make([]int32, len(msgs))
	for i, m := range msgs {
		if m.From < 0 || int(m.From) >= n || m.To < 0 || int(m.To) >= n {
			return nil, fmt.Errorf("rdt: message %d: process out of range", i)
		}
		if m.From == m.To {
			return nil, fmt.Errorf("rdt: message %d: sent by process %d to itself", i, m.From)
		}
		if m.SendOp < 0 || m.RecvOp < 0 {
			return nil, fmt.Errorf("rdt: message %d: negative op position", i)
		}
		count[m.From]++
		count[m.To]++
		// The number of checkpoints after the initial one taken at a
		// position ≤ the receipt.
		recvIv[i] = interval(ckpts[m.To], m.RecvOp)
	}
	pt := &pattern{n: n, ckpts: after, msgs: msgs, ops: make([][]opRef, n), recvIv: recvIv}
	for p := range pt.ops {
		pt.ops[p] = make([]opRef, 0, count[p])
	}
	for i, m := range msgs {
		pt.ops[m.From] = append(pt.ops[m.From], opRef{op: m.SendOp, msg: int32(i)})
		pt.ops[m.To] = append(pt.ops[m.To], opRef{op: m.RecvOp, msg: int32(i), recv: true})
	}
	for p, ops := range pt.ops {
		slices.SortFunc(ops, func(a, b opRef) int { return cmp.Compare(a.op, b.op) })
		for k := 1; k < len(ops); k++ {
			if ops[k].op == ops[k-1].op {
				return nil, fmt.Errorf("rdt: process %d: op %d is claimed by messages %d and %d", p, ops[k].op, ops[k-1].msg, ops[k].msg)
			}
		}
	}
	return pt, nil
}
