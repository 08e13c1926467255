package explore

import (
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/rline"
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
// line at every failure point (Lines with replay.Plain, compare's
// uncoordinated row) undoes exactly what SPEC §7's uncoordinated
// baseline (measure.Uncoordinated, computed from the trace alone, here
// with a fail at every point: explore's baseline) says — two independent
// computations of one figure, one through the engine up to the failure,
// one from the trace. The trace's own fails are kept for the baseline,
// which takes each fail on its own, and stripped for Lines, which
// measures failure-free runs; the points match by ID.
func TestLinesAreTheBaseline(t *testing.T) {
	moved := 0
	rapid.Check(t, func(t *rapid.T) {
		b := newBase(prepared(t, gentest.Trace().Draw(t, "trace"), false), nil)
		b.need = slices.Repeat([]bool{true}, len(b.points))
		want := b.baselines()
		ff := newBase(prepared(t, b.tr, true), nil)
		got := make([]int, len(b.points))
		err := ff.lines(mustReplay(t, ff.tr, plain), func(g int, line []rline.Entry) { got[b.byID[ff.points[g].ID]] = undone(line) })
		if err != nil {
			t.Fatal(err)
		}
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
		// Moved: rolled back below its start, the latest checkpoint.
		err := b.lines(mustReplay(t, tr, mk), func(g int, line []rline.Entry) {
			if line[b.points[g].P].Moved {
				beyond++
			}
		})
		if err != nil {
			t.Fatal(err)
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
// at every point, and a trace with failures left in is refused with the
// event named.
func TestLinesEveryProtocol(t *testing.T) {
	tr := prepared(t, mustGen(t, 3, 60, 3), true)
	for _, name := range []string{"bcs", "fdas", "hmnr", "coordinated"} {
		per, err := linesPerPoint(tr, protocol(name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(per) != len(newBase(tr, nil).points) {
			t.Errorf("%s: %d figures for %d points", name, len(per), len(newBase(tr, nil).points))
		}
	}
	withFail := prepared(t, mustGenFailures(t, 3, 60, 3), false)
	if _, err := Lines(withFail, mustReplay(t, tr, protocol("bcs"))); err == nil {
		t.Error("a trace with failures was measured")
	}
	stripped := prepared(t, withFail, true)
	if _, err := Lines(stripped, mustReplay(t, stripped, protocol("bcs"))); err != nil {
		t.Errorf("stripped: %v", err)
	}
}

// linesPerPoint is Lines' figure at each failure point, in the global
// order of points.
func linesPerPoint(tr *trace.Trace, mk func(*trace.Trace) (replay.Algorithm, error)) ([]int, error) {
	alg, err := mk(tr)
	if err != nil {
		return nil, err
	}
	run, err := Replay(tr, alg)
	if err != nil {
		return nil, err
	}
	b := newBase(tr, nil)
	out := make([]int, len(b.points))
	err = b.lines(run, func(g int, line []rline.Entry) { out[g] = undone(line) })
	return out, err
}

// mustReplay is Replay through the protocol mk builds for tr.
func mustReplay(t fataler, tr *trace.Trace, mk func(*trace.Trace) (replay.Algorithm, error)) *trace.Run {
	alg, err := mk(tr)
	if err != nil {
		t.Fatal(err)
	}
	run, err := Replay(tr, alg)
	if err != nil {
		t.Fatal(err)
	}
	return run
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

// TestLinesCrashWhereExploreInjects: a crash is placed where Run's
// injected failure falls. For the protocols that do not delay the
// computation every process has then run exactly its ops listed before
// the point in the trace, on traces with flushes and equal times; for
// coordinated checkpointing, which blocks, the crashed process has run
// exactly its ops before the point when that is an op, others wherever
// the run had them.
func TestLinesCrashWhereExploreInjects(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := gentest.Config().Draw(t, "config")
		cfg.Failures, cfg.Events = 0, rapid.IntRange(5, 60).Draw(t, "events")
		raw, err := gen.Trace(cfg)
		if err != nil {
			t.Fatal(err)
		}
		tr := prepared(t, raw, true)
		b := newBase(tr, nil)
		for _, name := range []string{"", "bcs", "hmnr", "coordinated"} {
			mk := plain
			if name != "" {
				mk = protocol(name)
			}
			alg, _ := mk(tr)
			run, err := replay.Run(tickLabelled(tr), alg, replay.Options{})
			if err != nil {
				t.Fatal(err)
			}
			h, err := newHistory(run, tr)
			if err != nil {
				t.Fatal(err)
			}
			for g := range b.points {
				pt := &b.points[g]
				got := opsBefore(run, h.cut(pt), len(tr.Processes))
				want := traceOpsBefore(tr, pt.Gap)
				if name == "coordinated" {
					// Ticks and flushes happen at their time: only a
					// crash before an op is placed in p's program.
					if pt.Before != trace.None && tr.Events[pt.Before].Kind.IsOp() && got[pt.P] != want[pt.P] {
						t.Fatalf("coordinated, %s: the crashed process ran %d ops, want %d", b.describe(pt), got[pt.P], want[pt.P])
					}
					continue
				}
				if !slices.Equal(got, want) {
					t.Fatalf("%q, %s: ops %v at the crash, want %v", name, b.describe(pt), got, want)
				}
			}
		}
	})
}

// opsBefore counts each process's app events among the first cut events
// of run.
func opsBefore(run *trace.Run, cut int32, n int) []int32 {
	ops := make([]int32, n)
	for i := int32(0); run != nil && i < cut; i++ {
		if e := &run.Events[i]; e.Kind.IsOp() {
			ops[e.P]++
		}
	}
	return ops
}

// traceOpsBefore counts each process's ops among the first gap events of
// tr.
func traceOpsBefore(tr *trace.Trace, gap int32) []int32 {
	ops := make([]int32, len(tr.Processes))
	for i := int32(0); i < gap; i++ {
		if e := &tr.Events[i]; e.Kind.IsOp() {
			ops[e.P]++
		}
	}
	return ops
}

// BenchmarkLines: every failure point of a 6-process, 1,000-op trace
// (about 1,200 points) through BCS.
func BenchmarkLines(b *testing.B) {
	tr := prepared(b, genTrace(b, 6, 1000, 4, 0), true)
	for b.Loop() {
		if _, err := Lines(tr, mustReplay(b, tr, protocol("bcs"))); err != nil {
			b.Fatal(err)
		}
	}
}
