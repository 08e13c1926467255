package mutants

import (
	"slices"

	"github.com/ckpt-dev/ckpt/replay"
)

// The mutants clone as their machines do (replay.Cloner), so that
// explore shares replayed prefixes with them as with the real ones; a
// wrapper around a machine that cannot be cloned returns nil.

// cloneOf clones a, or returns nil.
func cloneOf(a replay.Algorithm) replay.Algorithm {
	if c, ok := a.(replay.Cloner); ok {
		return c.Clone()
	}
	return nil
}

// Clone implements replay.Cloner.
func (w *edited) Clone() replay.Algorithm {
	a := cloneOf(w.Algorithm)
	if a == nil {
		return nil
	}
	return &edited{Algorithm: a, keep: w.keep}
}

// Clone implements replay.Cloner.
func (w *noForcedMS) Clone() replay.Algorithm {
	if a := cloneOf(w.Algorithm); a != nil {
		return &noForcedMS{Algorithm: a}
	}
	return nil
}

// Clone implements replay.Cloner.
func (w *replayAllMS) Clone() replay.Algorithm {
	a := cloneOf(w.Algorithm)
	if a == nil {
		return nil
	}
	c := &replayAllMS{Algorithm: a, log: slices.Clone(w.log)}
	for p := range c.log {
		c.log[p] = slices.Clone(c.log[p])
	}
	return c
}
