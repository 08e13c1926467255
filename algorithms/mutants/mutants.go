// Package mutants holds deliberately broken variants of the real state
// machines, so that the checker's tests have runs that violate each
// property (SPEC §7: "runs from deliberately broken algorithm variants").
//
// It is for tests only: no production package imports it (a test of this
// package checks that), so the CLI cannot replay a mutant. Each mutant
// wraps the real machine, unchanged, and edits the inputs it is given
// and the effects it returns; no production package has a hook for a
// mutant. Where the machine's own later decisions depend on the broken
// rule (MS no-forced, replay-all: ms.go here), the wrapper edits the
// input so that the machine decides as a broken one would.
package mutants

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/algorithms/ms"
	"github.com/ckpt-dev/ckpt/algorithms/pk"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// Mutant is one deliberately broken variant of algorithm Algo.
type Mutant struct {
	Algo string
	Name string
	// Doc says what it breaks.
	Doc string
	new func(tr *trace.Trace) (replay.Algorithm, error)
}

// All lists the mutants (docs/ms.md, docs/pk.md). The run of a mutant is
// labelled with its algorithm's name: it stands in for a buggy
// implementation of it.
var All = []Mutant{
	{Algo: "ms", Name: "no-forced", Doc: "never takes forced checkpoints", new: newNoForced},
	{Algo: "ms", Name: "no-log", Doc: "never logs, so a restore replays nothing", new: editMS(noLog)},
	{Algo: "ms", Name: "replay-all", Doc: "replays every logged entry, ignoring the validity rule", new: newReplayAll},
	{Algo: "pk", Name: "no-token", Doc: "a restart tells nobody and does not wait", new: editPK(noToken)},
	{Algo: "pk", Name: "no-resend", Doc: "tokens trigger no resends", new: editPK(noResend)},
	{Algo: "pk", Name: "no-requeue", Doc: "a rollback drops the copies of the receipts it undoes", new: editPK(noRequeue)},
}

// Placement lists the mutants of the checkpoint-placement protocols
// (docs/protocols.md), each without what keeps its promise. They replay
// failure-free traces only, as their protocols do, so they are kept
// apart from All, whose mutants the recovery tests replay on traces with
// failures.
var Placement = []Mutant{
	{Algo: "bcs", Name: "no-forced", Doc: "never takes forced checkpoints", new: editProtocol("bcs", noForced)},
	{Algo: "fdas", Name: "no-forced", Doc: "never takes forced checkpoints", new: editProtocol("fdas", noForced)},
	{Algo: "hmnr", Name: "no-forced", Doc: "never takes forced checkpoints", new: editProtocol("hmnr", noForced)},
	{Algo: "coordinated", Name: "non-blocking", Doc: "computes on between its round checkpoint and the commit", new: editProtocol("coordinated", noBlocking)},
}

// New returns the state machine of algorithm algo in variant: a mutant's
// name, or a real variant (then it is algorithms.New's).
func New(algo, variant string, tr *trace.Trace) (replay.Algorithm, error) {
	for _, m := range append(All[:len(All):len(All)], Placement...) {
		if m.Algo == algo && m.Name == variant {
			return m.new(tr)
		}
	}
	a, err := algorithms.New(algo, variant, tr)
	if err != nil {
		return nil, fmt.Errorf("%w (nor a mutant)", err)
	}
	return a, nil
}

func editMS(fn func(f *replay.Effect) bool) func(*trace.Trace) (replay.Algorithm, error) {
	return func(tr *trace.Trace) (replay.Algorithm, error) {
		a, err := ms.New(ms.Default, tr)
		if err != nil {
			return nil, err
		}
		return &edited{Algorithm: a, keep: fn}, nil
	}
}

func editPK(fn func(f *replay.Effect) bool) func(*trace.Trace) (replay.Algorithm, error) {
	return func(tr *trace.Trace) (replay.Algorithm, error) {
		a, err := pk.New(pk.Default, tr)
		if err != nil {
			return nil, err
		}
		return &edited{Algorithm: a, keep: fn}, nil
	}
}

func editProtocol(name string, fn func(f *replay.Effect) bool) func(*trace.Trace) (replay.Algorithm, error) {
	return func(tr *trace.Trace) (replay.Algorithm, error) {
		a, err := algorithms.New(name, "", tr)
		if err != nil {
			return nil, err
		}
		return &edited{Algorithm: a, keep: fn}, nil
	}
}

// edited is a real machine whose effects keep edits, one at a time: it
// may change an effect, and drops it by returning false.
type edited struct {
	replay.Algorithm
	keep func(f *replay.Effect) bool
}

// Step implements replay.Algorithm.
func (w *edited) Step(in *replay.Input, fx []replay.Effect) []replay.Effect {
	n := len(fx)
	fx = w.Algorithm.Step(in, fx)
	out := fx[:n]
	for i := n; i < len(fx); i++ {
		if w.keep(&fx[i]) {
			out = append(out, fx[i])
		}
	}
	return out
}

// noLog: nothing reaches the stable log, so no restore has anything to
// replay. (The machine keeps its own log, which nothing reads any more.)
func noLog(f *replay.Effect) bool {
	switch f.Kind {
	case replay.EffLog:
		return false
	case replay.EffRestart, replay.EffRollback:
		f.Replay = nil
	}
	return true
}

// noToken: no token leaves a restart (nor is forwarded, there being
// none), and the restarted process is not held waiting for it.
func noToken(f *replay.Effect) bool {
	return !(f.Kind == replay.EffControl && f.Control == trace.ControlToken) && f.Kind != replay.EffHoldProcess
}

// noResend: a token resends nothing (a restart still re-transmits its
// replayed sends).
func noResend(f *replay.Effect) bool { return f.Kind != replay.EffResend }

// noRequeue: a rollback puts no copy back into the mailbox.
func noRequeue(f *replay.Effect) bool {
	if f.Kind == replay.EffRollback {
		f.Requeue = nil
	}
	return true
}

// noForced: no forced checkpoint is taken (the machine believes it was).
func noForced(f *replay.Effect) bool {
	return !(f.Kind == replay.EffCheckpoint && f.CkptType == trace.CkptForced)
}

// noBlocking: a process is not held between its round checkpoint and
// the commit.
func noBlocking(f *replay.Effect) bool {
	return f.Kind != replay.EffHoldProcess && f.Kind != replay.EffResume
}
