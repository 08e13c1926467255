package explore

import (
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
	"github.com/ckpt-dev/ckpt/trace/gen/gentest"
)

// plain is uncoordinated checkpointing: a checkpoint at every tick.
func plain(tr *trace.Trace) (replay.Algorithm, error) { return replay.NewPlain(len(tr.Processes)), nil }

func protocol(name string) func(*trace.Trace) (replay.Algorithm, error) {
	return func(tr *trace.Trace) (replay.Algorithm, error) { return algorithms.New(name, "", tr) }
}

// TestLinesAreTheBaseline: with a checkpoint at every tick, the recovery
// line at every failure point undoes exactly what SPEC §7's
// uncoordinated baseline (consistency/baseline, computed from the trace
// alone) says — two independent computations of one figure, one
// through the engine up to the failure, one from the trace.
func TestLinesAreTheBaseline(t *testing.T) {
	moved := 0
	rapid.Check(t, func(t *rapid.T) {
		tr := prepared(t, gentest.Trace().Draw(t, "trace"), true)
		got, err := LinesPerPoint(tr, plain, Options{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		want := newBase(tr, nil).baselines()
		if !slices.Equal(got, want) {
			t.Fatalf("lines %v, baseline %v", got, want)
		}
		for _, u := range got {
			if u > 0 {
				moved++
			}
		}
	})
	if moved == 0 {
		t.Fatal("no failure undid anything: the comparison proves little")
	}
}

// TestLinesKeepBCSAtItsLatestCheckpoint: BCS's checkpoints numbered ≥ n
// form consistent lines (S_n), so a failed process never goes back
// beyond its latest checkpoint; without forced checkpoints it does, on
// some workload, which the test must see (else it could not fail).
func TestLinesKeepBCSAtItsLatestCheckpoint(t *testing.T) {
	tr := prepared(t, mustGen(t, 4, 120, 7), true)
	b := newBase(tr, nil)
	check := func(mk func(*trace.Trace) (replay.Algorithm, error)) (beyond int) {
		for g := range b.points {
			line, ckpts, err := b.recoveryLine(int32(g), mk)
			if err != nil {
				t.Fatal(err)
			}
			f := b.points[g].P
			if line[f].Pos < ckpts[f][len(ckpts[f])-1] {
				beyond++
			}
		}
		return beyond
	}
	if n := check(protocol("bcs")); n != 0 {
		t.Errorf("BCS: at %d failure points the failed process goes back beyond its latest checkpoint", n)
	}
	noForced := func(tr *trace.Trace) (replay.Algorithm, error) {
		a, err := algorithms.New("bcs", "", tr)
		return &dropForced{a}, err
	}
	if n := check(noForced); n == 0 {
		t.Error("BCS without forced checkpoints never rolls a failed process beyond its latest checkpoint: the test cannot fail")
	}
}

// dropForced is BCS with its forced checkpoints suppressed (test only).
type dropForced struct{ replay.Algorithm }

func (a *dropForced) Step(in *replay.Input, fx []replay.Effect) []replay.Effect {
	n := len(fx)
	fx = a.Algorithm.Step(in, fx)
	out := fx[:n]
	for _, e := range fx[n:] {
		if e.Kind != replay.EffCheckpoint || e.CkptType != trace.CkptForced {
			out = append(out, e)
		}
	}
	return out
}

// TestLinesEveryProtocol: every protocol without recovery gets a figure
// at every point, the same with one worker or several, and a trace with
// failures left in is refused with the event named.
func TestLinesEveryProtocol(t *testing.T) {
	tr := prepared(t, mustGen(t, 3, 60, 3), true)
	for _, name := range []string{"bcs", "fdas", "hmnr", "coordinated"} {
		one, err := LinesPerPoint(tr, protocol(name), Options{Workers: 1})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		many, err := LinesPerPoint(tr, protocol(name), Options{Workers: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(one) != len(newBase(tr, nil).points) || !slices.Equal(one, many) {
			t.Errorf("%s: %v with one worker, %v with three", name, one, many)
		}
	}
	withFail := prepared(t, mustGenFailures(t, 3, 60, 3), false)
	if _, err := LinesPerPoint(withFail, protocol("bcs"), Options{}); err == nil {
		t.Error("a trace with failures was measured")
	}
	if _, err := LinesPerPoint(withFail, protocol("bcs"), Options{StripFailures: true}); err != nil {
		t.Errorf("stripped: %v", err)
	}
}

// mustGen returns a generated failure-free trace: procs processes, ops
// ops, ticks every 2–4 s.
func mustGen(t fataler, procs, ops int, seed uint64) *trace.Trace {
	return genTrace(t, procs, ops, seed, 0)
}

// mustGenFailures is mustGen with two failures.
func mustGenFailures(t fataler, procs, ops int, seed uint64) *trace.Trace {
	return genTrace(t, procs, ops, seed, 2)
}

func genTrace(t fataler, procs, ops int, seed uint64, failures int) *trace.Trace {
	cfg := gen.DefaultConfig()
	cfg.Procs, cfg.Events, cfg.Seed, cfg.Failures = procs, ops, seed, failures
	cfg.Ticks = []trace.Time{2 * trace.Second, 3 * trace.Second, 4 * trace.Second}[:min(procs, 3)]
	tr, err := gen.Trace(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}
