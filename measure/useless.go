package measure

import (
	"github.com/ckpt-dev/ckpt/consistency/zgraph"
	"github.com/ckpt-dev/ckpt/rline"
)

// Useless counts the checkpoints on a Z-cycle (Netzer–Xu) of a
// checkpoint and communication pattern given as rline takes one:
// checkpoint positions per process (the initial one at 0 first), and
// messages by their ops, those never received playing no part. The
// baseline counts the trace's ticks by it, and `ckpt compare` each
// protocol's checkpoints; the checker counts a run's on the graph it
// judges z-cycle-free by (Stats). A message to or from no process is an
// error, never a panic.
func Useless(ckpts [][]int32, msgs []rline.Msg) (int, error) {
	counts := make([]int32, len(ckpts))
	for p := range counts {
		counts[p] = int32(len(ckpts[p]))
	}
	// The interval of op k: the last checkpoint at a position ≤ k.
	interval := func(p, k int32) int32 {
		if p < 0 || int(p) >= len(ckpts) {
			return rline.None // zgraph refuses the message
		}
		h, _ := rline.Slices(ckpts).Latest(p, k)
		return h
	}
	zm := make([]zgraph.Msg, 0, len(msgs))
	for _, m := range msgs {
		if m.RecvOp != rline.None {
			zm = append(zm, zgraph.Msg{From: m.From, FromInterval: interval(m.From, m.SendOp), To: m.To, ToInterval: interval(m.To, m.RecvOp)})
		}
	}
	g, err := zgraph.New(counts, zm)
	if err != nil {
		return 0, err
	}
	return g.UselessCount(), nil
}
