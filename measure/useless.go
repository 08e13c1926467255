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
	g, err := zgraph.New(ckpts, msgs)
	if err != nil {
		return 0, err
	}
	return g.UselessCount(), nil
}
