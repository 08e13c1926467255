// Package bcs implements the checkpoint-placement protocol of Briatico,
// Ciuffoletti and Simoncini (1984) as a pure state machine driven by the
// replay engine (replay.Algorithm): the index-based protocol that
// Manivannan–Singhal's quasi-synchronous checkpointing extends with
// skipped ticks and recovery.
//
// Each process keeps an integer clock lc, 0 at checkpoint 0. A basic
// checkpoint (a timer tick) sets lc := lc+1 and is numbered lc. Every
// message piggybacks lc. A receipt of m with m.lc > lc takes a forced
// checkpoint numbered m.lc before the delivery, and lc := m.lc. In runs
// the piggyback is {"lc": N} (trace.CIC's LC, as HMNR writes its clock),
// not MS's {"sn", "f"}: a BCS run must not read as an MS one. Hence
// the checkpoints numbered ≥ n that come first on each process form a
// consistent global checkpoint for every n, and no checkpoint is useless
// (lies on a Z-cycle). Recovery is not implemented (the registry,
// package algorithms, refuses a trace with a failure).
// docs/protocols.md gives the sources and the decisions.
package bcs

import (
	"slices"

	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// Name is the algorithm's name in runs.
const Name = "bcs"

// BCS is the state machine for every process of a trace.
type BCS struct {
	lc     []int32 // per process: its clock
	nextID []int32 // per process: the id of its next checkpoint
	// pb is each process's current piggyback, shared by its sends until
	// lc changes (a sent CIC is immutable), so that a send allocates
	// nothing.
	pb   []*trace.CIC
	slab trace.CICSlab
}

// New returns the state machine for tr, which has no failure (the
// registry, package algorithms, refuses one).
func New(tr *trace.Trace) *BCS {
	n := len(tr.Processes)
	return &BCS{lc: make([]int32, n), nextID: slices.Repeat([]int32{1}, n), pb: make([]*trace.CIC, n)}
}

// Name implements replay.Algorithm.
func (a *BCS) Name() string { return Name }

// Step implements replay.Algorithm.
func (a *BCS) Step(in *replay.Input, fx []replay.Effect) []replay.Effect {
	p := in.P
	switch in.Kind {
	case replay.InTick:
		if !in.Down {
			fx = a.checkpoint(p, a.lc[p]+1, trace.CkptBasic, fx)
		}
	case replay.InSend:
		pb := trace.NewPiggyback()
		pb.CIC = a.piggyback(p)
		fx = append(fx, replay.Effect{Kind: replay.EffPiggyback, PB: pb})
	case replay.InRecv:
		if m := LC(in.PB); m > a.lc[p] {
			fx = a.checkpoint(p, m, trace.CkptForced, fx)
		}
		fx = append(fx, replay.Effect{Kind: replay.EffDeliver})
	}
	return fx
}

// piggyback returns p's {"lc": lc}, made anew only when lc has changed.
func (a *BCS) piggyback(p replay.Proc) *trace.CIC {
	if c := a.pb[p]; c != nil && c.LC == a.lc[p] {
		return c
	}
	c := a.slab.CIC()
	c.LC = a.lc[p]
	a.pb[p] = c
	return c
}

// LC is the clock a BCS piggyback carries, 0 when it has none.
func LC(pb *trace.Piggyback) int32 {
	if pb == nil || pb.CIC == nil || pb.CIC.LC == trace.None {
		return 0
	}
	return pb.CIC.LC
}

// checkpoint takes p's next checkpoint, numbered lc.
func (a *BCS) checkpoint(p replay.Proc, lc int32, typ trace.CkptType, fx []replay.Effect) []replay.Effect {
	a.lc[p] = lc
	fx = append(fx, replay.Effect{Kind: replay.EffCheckpoint, Ckpt: a.nextID[p], CkptType: typ, Sn: lc})
	a.nextID[p]++
	return fx
}
