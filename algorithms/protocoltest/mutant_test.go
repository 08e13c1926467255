package protocoltest

import (
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// Filtered is a test-only mutant of a protocol: the protocol runs as
// usual, believing its effects happen, but Drop removes some of them
// before the engine sees them.
type Filtered struct {
	replay.Algorithm
	Drop func(e *replay.Effect) bool
}

// Step implements replay.Algorithm.
func (f *Filtered) Step(in *replay.Input, fx []replay.Effect) []replay.Effect {
	n := len(fx)
	fx = f.Algorithm.Step(in, fx)
	out := fx[:n]
	for i := n; i < len(fx); i++ {
		if !f.Drop(&fx[i]) {
			out = append(out, fx[i])
		}
	}
	return out
}

// NoForced is the mutant whose forced checkpoints are suppressed.
func NoForced(a replay.Algorithm) *Filtered {
	return &Filtered{Algorithm: a, Drop: func(e *replay.Effect) bool {
		return e.Kind == replay.EffCheckpoint && e.CkptType == trace.CkptForced
	}}
}
