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
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// Mutant is one deliberately broken variant of algorithm Algo.
type Mutant struct {
	Algo string
	Name string
	// Doc says what it breaks.
	Doc string
	// wrap wraps a, the real machine of Algo (its default variant) for a
	// trace of n processes.
	wrap func(a replay.Algorithm, n int) replay.Algorithm
}

// All lists the mutants (docs/ms.md, docs/pk.md). The run of a mutant is
// labelled with its algorithm's name: it stands in for a buggy
// implementation of it.
var All = []Mutant{
	{Algo: "ms", Name: "no-forced", Doc: "never takes forced checkpoints", wrap: newNoForced},
	{Algo: "ms", Name: "no-log", Doc: "never logs, so a restore replays nothing", wrap: edit(noLog)},
	{Algo: "ms", Name: "replay-all", Doc: "replays every logged entry, ignoring the validity rule", wrap: newReplayAll},
	{Algo: "pk", Name: "no-token", Doc: "a restart tells nobody and does not wait", wrap: edit(noToken)},
	{Algo: "pk", Name: "no-resend", Doc: "tokens trigger no resends", wrap: edit(noResend)},
	{Algo: "pk", Name: "no-requeue", Doc: "a rollback drops the copies of the receipts it undoes", wrap: edit(noRequeue)},
}

// Placement lists the mutants of the checkpoint-placement protocols
// (docs/protocols.md), each without what keeps its promise. They replay
// failure-free traces only, as their protocols do, so they are kept
// apart from All, whose mutants the recovery tests replay on traces with
// failures.
var Placement = []Mutant{
	{Algo: "bcs", Name: "no-forced", Doc: "never takes forced checkpoints", wrap: edit(noForced)},
	{Algo: "fdas", Name: "no-forced", Doc: "never takes forced checkpoints", wrap: edit(noForced)},
	{Algo: "hmnr", Name: "no-forced", Doc: "never takes forced checkpoints", wrap: edit(noForced)},
	{Algo: "coordinated", Name: "non-blocking", Doc: "computes on between its round checkpoint and the commit", wrap: edit(noBlocking)},
}

// New returns the state machine of algorithm algo in variant: a mutant's
// name, or a real variant (then it is algorithms.New's).
func New(algo, variant string, tr *trace.Trace) (replay.Algorithm, error) {
	for _, m := range append(All[:len(All):len(All)], Placement...) {
		if m.Algo == algo && m.Name == variant {
			a, err := algorithms.New(algo, "", tr)
			if err != nil {
				return nil, err
			}
			return m.wrap(a, len(tr.Processes)), nil
		}
	}
	a, err := algorithms.New(algo, variant, tr)
	if err != nil {
		return nil, fmt.Errorf("%w (nor a mutant)", err)
	}
	return a, nil
}

// edit returns the wrapper of a mutant that edits the real machine's
// effects with keep.
func edit(keep func(f *replay.Effect) bool) func(replay.Algorithm, int) replay.Algorithm {
	return func(a replay.Algorithm, _ int) replay.Algorithm { return &edited{Algorithm: a, keep: keep} }
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
