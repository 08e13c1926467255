package replay

import "github.com/ckpt-dev/ckpt/trace"

// Plain is the smallest useful Algorithm, and the example of how one plugs
// into the engine: uncoordinated checkpoints at every tick, no piggyback
// beyond nothing, no logging, every copy delivered, and a failed process
// restoring its latest checkpoint without telling anyone. It keeps
// orphans; it exists to test the engine's semantics in isolation.
type Plain struct {
	// last[p] is p's latest checkpoint id and pos[p] its position.
	last []int32
	pos  []int32
	next []int32
}

// NewPlain returns a Plain algorithm for a trace of n processes.
func NewPlain(n int) *Plain {
	return &Plain{last: make([]int32, n), pos: make([]int32, n), next: make([]int32, n)}
}

// Name implements Algorithm.
func (a *Plain) Name() string { return "plain" }

// Step implements Algorithm.
func (a *Plain) Step(in *Input, fx []Effect) []Effect {
	p := in.P
	switch in.Kind {
	case InTick:
		if in.Down {
			return fx
		}
		a.next[p]++
		a.last[p], a.pos[p] = a.next[p], in.Pos
		fx = append(fx, Effect{Kind: EffCheckpoint, Ckpt: a.next[p], CkptType: trace.CkptBasic})
	case InSend:
		fx = append(fx, Effect{Kind: EffPiggyback, PB: trace.NewPiggyback()})
	case InRecv:
		fx = append(fx, Effect{Kind: EffDeliver})
	case InRestart:
		fx = append(fx, Effect{Kind: EffRestart, Ckpt: a.last[p], Pos: a.pos[p], Failure: in.Failure})
	}
	return fx
}
