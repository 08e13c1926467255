// Package hmnr implements the communication-induced checkpointing
// protocol of Hélary, Mostefaoui, Netzer and Raynal ("Communication-based
// prevention of useless checkpoints in distributed computations",
// Distributed Computing 13(1), 2000, Fig. 10, with the conditions as
// Egida implements them) as a pure state machine driven by the replay
// engine (replay.Algorithm).
//
// Process i keeps a clock lc and, per process k, ckpt[k] (the latest
// checkpoint of k it causally knows), taken[k] (a checkpoint lies on a
// causal path from that one to i), greater[k] (lc exceeds every clock of
// k it knows) and sent_to[k] (it sent to k in its current interval).
// Every checkpoint clears sent_to, sets taken[k] and greater[k] for
// k ≠ i, and increments lc and ckpt[i]. A send to k sets sent_to[k] and
// piggybacks (lc, greater, taken, ckpt). A receipt of m is preceded by a
// forced checkpoint if m.ckpt[i] = ckpt[i] and m.taken[i] (the message
// would close a Z-cycle through a checkpoint), or else if m.lc > lc and
// sent_to[k] and m.greater[k] for some k; then, with the lc after any
// forced checkpoint: if m.lc > lc, lc := m.lc, greater[i] := false and
// greater[k] := m.greater[k] for k ≠ i; if m.lc = lc, greater[k] &&=
// m.greater[k] for all k; and for k ≠ i, ckpt[k] and taken[k] take m's
// values if m.ckpt[k] > ckpt[k], or taken[k] ||= m.taken[k] if equal.
// No checkpoint is useless. Recovery is not implemented (the registry,
// package algorithms, refuses a trace with a failure). docs/protocols.md
// gives the decisions.
package hmnr

import (
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// Name is the algorithm's name in runs.
const Name = "hmnr"

type proc struct {
	lc                     int32
	ckpt                   []int32
	taken, greater, sentTo []bool
	// pb is the piggyback's vector part, shared by sends until the
	// state changes; nil when stale.
	pb     *trace.CIC
	nextID int32
}

// HMNR is the state machine for every process of a trace.
type HMNR struct {
	procs []proc
	// slab holds the piggyback vectors of every process.
	slab trace.CICSlab
}

// New returns the state machine for tr, which has no failure (the
// registry, package algorithms, refuses one).
func New(tr *trace.Trace) *HMNR {
	n := len(tr.Processes)
	a := &HMNR{procs: make([]proc, n)}
	for p := range a.procs {
		pr := &a.procs[p]
		pr.ckpt = make([]int32, n)
		pr.taken, pr.greater, pr.sentTo = make([]bool, n), make([]bool, n), make([]bool, n)
		// Checkpoint 0 goes through the checkpoint procedure like any
		// other, lc starting at −1 so that it is numbered 0: ckpt[i] = 1
		// then keeps "i's interval 0" apart from "nothing of i" (0).
		pr.lc = -1
		pr.procedure(int32(p))
		pr.nextID = 1
	}
	return a
}

// Name implements replay.Algorithm.
func (a *HMNR) Name() string { return Name }

// Step implements replay.Algorithm.
func (a *HMNR) Step(in *replay.Input, fx []replay.Effect) []replay.Effect {
	p := in.P
	pr := &a.procs[p]
	switch in.Kind {
	case replay.InTick:
		if !in.Down {
			fx = a.checkpoint(p, trace.CkptBasic, fx)
		}
	case replay.InSend:
		if in.Peer >= 0 && int(in.Peer) < len(pr.sentTo) {
			pr.sentTo[in.Peer] = true
		}
		fx = append(fx, replay.Effect{Kind: replay.EffPiggyback, PB: pr.piggyback(&a.slab)})
	case replay.InRecv:
		m := decode(in.PB)
		if pr.forced(int32(p), &m) {
			fx = a.checkpoint(p, trace.CkptForced, fx)
		}
		pr.merge(int32(p), &m)
		fx = append(fx, replay.Effect{Kind: replay.EffDeliver})
	}
	return fx
}

// checkpoint takes p's next checkpoint, numbered with its lc.
func (a *HMNR) checkpoint(p replay.Proc, typ trace.CkptType, fx []replay.Effect) []replay.Effect {
	pr := &a.procs[p]
	pr.procedure(int32(p))
	fx = append(fx, replay.Effect{Kind: replay.EffCheckpoint, Ckpt: pr.nextID, CkptType: typ, Sn: pr.lc})
	pr.nextID++
	return fx
}

// procedure is what every checkpoint of process i does to its variables.
func (pr *proc) procedure(i int32) {
	for k := range pr.sentTo {
		pr.sentTo[k] = false
		if int32(k) != i {
			pr.taken[k], pr.greater[k] = true, true
		}
	}
	pr.lc++
	pr.ckpt[i]++
	pr.pb = nil
}

// forced reports whether process i must checkpoint before receiving m.
func (pr *proc) forced(i int32, m *message) bool {
	if m.ckpt(i) == pr.ckpt[i] && m.taken(i) {
		return true
	}
	if m.lc <= pr.lc {
		return false
	}
	for k, s := range pr.sentTo {
		if s && m.greater(int32(k)) {
			return true
		}
	}
	return false
}

// merge applies a receipt of m to process i's variables.
func (pr *proc) merge(i int32, m *message) {
	switch {
	case m.lc > pr.lc:
		pr.lc = m.lc
		for k := range pr.greater {
			pr.greater[k] = int32(k) != i && m.greater(int32(k))
		}
	case m.lc == pr.lc:
		for k := range pr.greater {
			pr.greater[k] = pr.greater[k] && m.greater(int32(k))
		}
	}
	for k := range pr.ckpt {
		switch c := m.ckpt(int32(k)); {
		case int32(k) == i:
		case c > pr.ckpt[k]:
			pr.ckpt[k], pr.taken[k] = c, m.taken(int32(k))
		case c == pr.ckpt[k]:
			pr.taken[k] = pr.taken[k] || m.taken(int32(k))
		}
	}
	pr.pb = nil
}
