// Package explore answers "does the recovery protocol really recover?"
// within a stated scope: it replays a trace under every placement of up
// to K injected failures (and, with Delays, perturbed message arrivals),
// through MS and/or PK, checks every run, and reports per algorithm and
// property how many schedules fail, a shrunk witness trace for each, the
// worst rollback, and how the algorithms compare with uncoordinated
// checkpointing over the whole failure space.
//
// The space, the failure placement, the equivalence reduction and its
// soundness argument are documented in docs/explore.md. Run is a library
// call: `ckpt explore` renders its Result, and other commands can reuse
// it (e.g. per-protocol statistics for one failure).
package explore

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"

	"github.com/ckpt-dev/ckpt/pipeline"
	"github.com/ckpt-dev/ckpt/trace"
)

// DefaultBudget is the number of schedules explored exhaustively; larger
// spaces are sampled.
const DefaultBudget = 100_000

// Options choose the scope of an exploration.
type Options struct {
	// Algorithms to run, in report order: "ms", "pk" (default both).
	Algorithms []string
	// Variant is an algorithm variant ("" or "textbook"); it applies to
	// the algorithms that have it (New accepts it), the others run as is.
	Variant string
	// New builds an algorithm's state machine; nil means algorithms.New.
	// Tests pass the test-only mutants' constructor here.
	New Constructor
	// Failures is K, the most failures injected into one schedule (0
	// runs the trace alone; the CLI's default is 1). The trace's own
	// failures come on top.
	Failures int
	// Delays also perturbs message arrivals (delays.go).
	Delays bool
	// Budget bounds the schedules run: a space of at most Budget
	// schedules (after the reduction) is explored exhaustively, a larger
	// one by Budget seeded random samples. 0 means DefaultBudget.
	Budget int64
	// Seed seeds the sampling.
	Seed uint64
	// Shard restricts the run to one part of the schedules.
	Shard Shard
	// StripFailures drops the trace's own fail events first.
	StripFailures bool
	// NoReduce runs every schedule instead of one per class.
	NoReduce bool
	// Params override the trace's params (command-line delays).
	Params trace.Params
	// Workers replay in parallel; 0 means GOMAXPROCS. The result does not
	// depend on it.
	Workers int
	// Progress, if set, is called as schedules finish (from one
	// goroutine at a time) with the count done and the count to do.
	Progress func(done, total int64)
	// ShrinkTests bounds the replays one witness's shrinking may spend;
	// 0 means DefaultShrinkTests.
	ShrinkTests int
	// Pipeline's memory cap bounds the exploration: fewer workers, or a
	// refusal (*pipeline.TooBig) when one does not fit. nil: no cap.
	Pipeline *pipeline.Pipeline
}

// Shard is one of Count disjoint parts of the schedules: part Index
// (0-based) holds the schedules whose ordinal is Index modulo Count. The
// zero Shard is the whole space.
type Shard struct{ Index, Count int }

// String writes the shard the way --shard takes it, 1-based: "2/4".
func (s Shard) String() string {
	if s.Count <= 1 {
		return "1/1"
	}
	return fmt.Sprintf("%d/%d", s.Index+1, s.Count)
}

func (s Shard) has(ordinal int64) bool {
	return s.Count <= 1 || ordinal%int64(s.Count) == int64(s.Index)
}

// of counts the ordinals below n that the shard has.
func (s Shard) of(n int64) int64 {
	if s.Count <= 1 {
		return n
	}
	return max(0, (n-int64(s.Index)+int64(s.Count)-1)/int64(s.Count))
}

// ErrOptions wraps errors in the options (as opposed to the trace).
var ErrOptions = errors.New("explore")

func (o *Options) normalize() error {
	if len(o.Algorithms) == 0 {
		o.Algorithms = []string{"ms", "pk"}
	}
	if o.Failures < 0 {
		return fmt.Errorf("%w: --failures %d: want 0 or more", ErrOptions, o.Failures)
	}
	if o.Budget == 0 {
		o.Budget = DefaultBudget
	}
	if o.Budget < 0 {
		return fmt.Errorf("%w: --budget %d: want 1 or more", ErrOptions, o.Budget)
	}
	if o.Shard.Count < 0 || (o.Shard.Count > 0 && (o.Shard.Index < 0 || o.Shard.Index >= o.Shard.Count)) {
		return fmt.Errorf("%w: shard %d/%d: want I/N with 1 <= I <= N", ErrOptions, o.Shard.Index+1, o.Shard.Count)
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.ShrinkTests <= 0 {
		o.ShrinkTests = DefaultShrinkTests
	}
	return nil
}

// Prepare returns the trace an exploration or a comparison starts
// from: tr's events (without its fails when strip), its params
// overridden by params and defaulted so that every schedule and witness
// carries them explicitly, validated.
func Prepare(tr *trace.Trace, params trace.Params, strip bool) (*trace.Trace, error) {
	evs := make([]trace.Event, 0, len(tr.Events))
	for _, ev := range tr.Events {
		if !strip || ev.Kind != trace.Fail {
			evs = append(evs, ev)
		}
	}
	return withEvents(tr, tr.Params.Override(params).WithDefaults(), evs)
}

// withEvents returns the trace of tr's processes, messages and labels
// with params and the events evs, validated (which rebuilds its message
// table).
func withEvents(tr *trace.Trace, params trace.Params, evs []trace.Event) (*trace.Trace, error) {
	out := &trace.Trace{Name: tr.Name, Processes: tr.Processes, Params: params, Msgs: tr.Msgs, Labels: slices.Clip(tr.Labels), Events: evs}
	if err := trace.Validate(out); err != nil {
		return nil, err
	}
	return out, nil
}

// Run explores tr (a validated trace) within the scope o states. When
// ctx is done first, it returns what the schedules run so far found,
// marked Stopped, without shrinking the witnesses.
func Run(ctx context.Context, tr *trace.Trace, o Options) (*Result, error) {
	x, err := newExplorer(ctx, tr, o)
	if err != nil {
		return nil, err
	}
	t, err := x.explore()
	if err != nil {
		return nil, err
	}
	return x.result(t), nil
}

// newExplorer prepares an exploration: the trace, the engines and the
// plan (space size, exhaustive or sampled).
func newExplorer(ctx context.Context, tr *trace.Trace, o Options) (*explorer, error) {
	if err := o.normalize(); err != nil {
		return nil, err
	}
	prep, err := Prepare(tr, o.Params, o.StripFailures)
	if err != nil {
		return nil, err
	}
	x := &explorer{o: o, tr: prep, ctx: ctx}
	for _, name := range o.Algorithms {
		e, err := newEngine(o.New, name, o.Variant, prep)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrOptions, err)
		}
		x.engines = append(x.engines, e)
	}
	x.base0 = newBase(prep, nil)
	if err := x.fit(); err != nil {
		return nil, err
	}
	x.scope = Scope{Failures: o.Failures, Delays: o.Delays, StripFailures: o.StripFailures,
		Reduced: !o.NoReduce, Budget: o.Budget, Seed: o.Seed, Shard: o.Shard.String(),
		Trace: traceDigest(prep), Points: len(x.base0.points)}
	if err := x.plan(); err != nil {
		return nil, err
	}
	return x, nil
}

// fit lowers the workers to what the memory cap holds: each keeps a
// replay and the checker's stream judging it (its model) per algorithm
// of every node on its path down the prefix tree (K + 1 of them, K at
// most the failure points: a schedule injects one failure a point). Not
// even one worker fitting is a refusal.
func (x *explorer) fit() error {
	p := x.o.Pipeline
	if p == nil {
		return nil
	}
	k := min(x.o.Failures, len(x.base0.points))
	for ; x.o.Workers > 1; x.o.Workers-- {
		if p.FitsAtOnce(x.tr, x.o.Algorithms, true, k, x.o.Workers*(k+1)) == nil {
			return nil
		}
	}
	return p.FitsAtOnce(x.tr, x.o.Algorithms, true, k, k+1)
}
