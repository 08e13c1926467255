package ms

import (
	"maps"
	"slices"

	"github.com/ckpt-dev/ckpt/replay"
)

// Clone implements replay.Cloner: an independent MS in the same state.
// Each process's checkpoints and log are copied (they are edited in
// place); F vectors and logged piggybacks are replaced, never modified,
// so they are shared.
func (a *MS) Clone() replay.Algorithm {
	c := *a
	c.procs = slices.Clone(a.procs)
	for p := range c.procs {
		pr := &c.procs[p]
		pr.ckpts = slices.Clone(pr.ckpts)
		pr.log = slices.Clone(pr.log)
	}
	c.recs = slices.Clone(a.recs)
	for o := range c.recs {
		c.recs[o] = slices.Clone(c.recs[o])
	}
	c.incFailure = maps.Clone(a.incFailure)
	return &c
}
