// Package fdas implements Wang's Fixed-Dependency-After-Send protocol
// (Y.-M. Wang, "Consistent global checkpoints that contain a given set of
// local checkpoints", IEEE TC 46(4), 1997) as a pure state machine driven
// by the replay engine (replay.Algorithm).
//
// Each process keeps a transitive dependency vector D, D[self] being its
// current interval, and a flag sent. Every checkpoint increments D[self]
// and clears sent; every message piggybacks D and sets sent. A receipt of
// m, when sent is set and m.D[k] > D[k] for some k, takes a forced
// checkpoint before the delivery; then D := max(D, m.D). So a process's
// dependencies never change after its first send in an interval, which
// makes every Z-path causally doubled: the pattern is rollback-dependency
// trackable (RDT), checked by zgraph.CheckRDT. Recovery is not
// implemented (the registry, package algorithms, refuses a trace with a
// failure). docs/protocols.md gives the decisions.
package fdas

import (
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// Name is the algorithm's name in runs.
const Name = "fdas"

type proc struct {
	// d[k] is one more than the latest interval of process k in the
	// causal past, 0 for none; d[self] is one more than the current
	// interval. The offset keeps "interval 0 of k" apart from "nothing of
	// k": checkpoint 0 applies the checkpoint rule like any other.
	d    []int32
	sent bool
	// pb is d as a piggyback, shared by sends until d changes; nil when
	// stale.
	pb     *trace.CIC
	nextID int32
}

// FDAS is the state machine for every process of a trace.
type FDAS struct {
	procs []proc
	// slab holds the piggyback vectors of every process.
	slab trace.CICSlab
}

// New returns the state machine for tr, which has no failure (the
// registry, package algorithms, refuses one).
func New(tr *trace.Trace) *FDAS {
	n := len(tr.Processes)
	a := &FDAS{procs: make([]proc, n)}
	d := make([]int32, n*n)
	for p := range a.procs {
		pr := &a.procs[p]
		pr.d = d[p*n : (p+1)*n : (p+1)*n]
		pr.d[p] = 1 // checkpoint 0
		pr.nextID = 1
	}
	return a
}

// Name implements replay.Algorithm.
func (a *FDAS) Name() string { return Name }

// Step implements replay.Algorithm.
func (a *FDAS) Step(in *replay.Input, fx []replay.Effect) []replay.Effect {
	pr := &a.procs[in.P]
	switch in.Kind {
	case replay.InTick:
		if !in.Down {
			fx = a.checkpoint(in.P, trace.CkptBasic, fx)
		}
	case replay.InSend:
		pr.sent = true
		fx = append(fx, replay.Effect{Kind: replay.EffPiggyback, PB: pr.piggyback(&a.slab)})
	case replay.InRecv:
		if pr.sent && pr.newer(in.PB) {
			fx = a.checkpoint(in.P, trace.CkptForced, fx)
		}
		pr.merge(in.PB)
		fx = append(fx, replay.Effect{Kind: replay.EffDeliver})
	}
	return fx
}

// checkpoint takes p's next checkpoint: a new interval, nothing sent in it.
func (a *FDAS) checkpoint(p replay.Proc, typ trace.CkptType, fx []replay.Effect) []replay.Effect {
	pr := &a.procs[p]
	pr.d[p]++
	pr.sent, pr.pb = false, nil
	fx = append(fx, replay.Effect{Kind: replay.EffCheckpoint, Ckpt: pr.nextID, CkptType: typ})
	pr.nextID++
	return fx
}
