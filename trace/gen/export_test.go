package gen

import (
	"slices"

	"github.com/ckpt-dev/ckpt/trace"
)

// RecoveryWindow is recoveryWindow of the normalized config (0 for an
// invalid one), for the tests.
func (c Config) RecoveryWindow() trace.Time {
	c, err := c.normalized()
	if err != nil {
		return 0
	}
	return c.recoveryWindow()
}

// Neighbors returns, for each process, the processes it may send to
// under cfg's topology, in increasing order: the tests' oracle for
// receiver.
func Neighbors(cfg Config) ([][]int32, error) {
	cfg, err := cfg.normalized()
	if err != nil {
		return nil, err
	}
	n := cfg.Procs
	out := make([][]int32, n)
	var adj [][]int32
	if cfg.Topology == Random {
		adj = randomGraph(n, cfg.Seed)
	}
	for p := range n {
		var l []int32
		switch cfg.Topology {
		case Complete:
			for q := range n {
				if q != p {
					l = append(l, int32(q))
				}
			}
		case Ring:
			if n > 1 {
				l = append(l, int32((p+n-1)%n), int32((p+1)%n))
			}
		case Star:
			if p == 0 {
				for q := 1; q < n; q++ {
					l = append(l, int32(q))
				}
			} else {
				l = append(l, 0)
			}
		case Random:
			l = adj[p]
		}
		slices.Sort(l)
		out[p] = slices.Compact(l)
	}
	return out, nil
}
