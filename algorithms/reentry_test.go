package algorithms_test

import (
	"fmt"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	broken "github.com/ckpt-dev/ckpt/algorithms/mutants"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// guard wraps an algorithm and counts the calls of Step made while
// another call of it is running: the engine must never make one
// (replay.Algorithm: Step is never re-entered). Before 3 Dec the engine
// asked PK for the piggyback of a restart's first-time sends (InSend)
// while it applied the restart's effects.
type guard struct {
	replay.Algorithm
	running bool
	nested  int
	calls   int
	// last is the kind of the input a nested call interrupted.
	last replay.InputKind
}

func (g *guard) Step(in *replay.Input, fx []replay.Effect) []replay.Effect {
	g.calls++
	if g.running {
		g.nested++
		return g.Algorithm.Step(in, fx)
	}
	g.running, g.last = true, in.Kind
	defer func() { g.running = false }()
	return g.Algorithm.Step(in, fx)
}

// TestStepNotReentered replays generated traces with (overlapping)
// failures, flushes and messages in transit through every variant,
// mutants included, and fails on any nested Step.
func TestStepNotReentered(t *testing.T) {
	n := uint64(150)
	if testing.Short() {
		n = 40
	}
	firstTime := 0 // sends a restart ran for the first time
	for seed := uint64(1); seed <= n; seed++ {
		tr, err := gen.Trace(mutationConfig(seed))
		if err != nil {
			t.Fatal(err)
		}
		tr.Name = fmt.Sprintf("seed-%d.json", seed)
		for _, v := range variants() {
			alg, err := broken.New(v[0], v[1], tr)
			if err != nil {
				t.Fatal(err)
			}
			g := &guard{Algorithm: alg}
			run, err := replay.Run(tr, g, replay.Options{})
			if err != nil {
				t.Fatalf("%s %s/%s: %v", tr.Name, v[0], v[1], err)
			}
			if g.nested > 0 {
				t.Fatalf("%s %s/%s: Step re-entered %d times (inside %v)", tr.Name, v[0], v[1], g.nested, g.last)
			}
			firstTime += firstTimeSends(run)
		}
	}
	if firstTime == 0 {
		t.Fatal("no restart ran a send for the first time: the test proves nothing")
	}
}

// firstTimeSends counts the sends that restarts ran for the first time:
// new (not resent) sends of the restarting process, at its restart time,
// just before its restart event.
func firstTimeSends(run *trace.Run) int {
	n := 0
	evs := run.Events
	for i := range evs {
		if evs[i].Kind != trace.Restart {
			continue
		}
		for j := i - 1; j >= 0 && evs[j].P == evs[i].P && evs[j].T == evs[i].T; j-- {
			if evs[j].Kind == trace.Send && !evs[j].Resend {
				n++
			}
		}
	}
	return n
}

// reenter is an algorithm that calls back into its guard, as an engine
// asking it something while applying its effects would.
type reenter struct {
	replay.Algorithm
	g *guard
}

func (r *reenter) Step(in *replay.Input, fx []replay.Effect) []replay.Effect {
	if in.Kind == replay.InTick {
		r.g.Step(&replay.Input{Kind: replay.InFlush, P: in.P}, nil)
	}
	return r.Algorithm.Step(in, fx)
}

// TestGuardCatchesReentry: the guard of TestStepNotReentered does see a
// nested call.
func TestGuardCatchesReentry(t *testing.T) {
	tr, err := tracetest.NewBuilder("P0").Checkpoint(0.1, "P0").Build()
	if err != nil {
		t.Fatal(err)
	}
	r := &reenter{Algorithm: replay.NewPlain(1)}
	g := &guard{Algorithm: r}
	r.g = g
	if _, err := replay.Run(tr, g, replay.Options{}); err != nil {
		t.Fatal(err)
	}
	if g.nested != 1 || g.last != replay.InTick {
		t.Fatalf("guard saw %d nested calls (inside %v), want 1 inside InTick", g.nested, g.last)
	}
}
