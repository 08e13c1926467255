package explore

import (
	"context"
	"fmt"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/algorithms/mutants"
	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen/gentest"
)

// algVariants are the algorithms the soundness test replays: the real
// ones, and the broken variants whose violations give the comparison
// something to find (a reduction that merged a failing schedule with a
// passing one would show up as a mismatch).
var algVariants = []struct{ name, variant string }{
	{"ms", ""}, {"ms", "textbook"}, {"ms", "no-forced"}, {"ms", "no-log"}, {"ms", "replay-all"},
	{"pk", ""}, {"pk", "no-token"}, {"pk", "no-resend"}, {"pk", "no-requeue"},
}

// bruteForce replays every schedule of tr's failure space with up to k
// failures through every algorithm variant and returns, per schedule
// (keyed by its points), the failing-property mask of each variant. With
// unpinned, every injected failure stays down just restart_delay, the
// naive space the reduction would be unsound on.
type bruteForce struct {
	b        *base
	engines  []engine
	verdicts map[string][]uint16
}

func newBruteForce(t fataler, tr *trace.Trace, strip bool, unpinned bool) *bruteForce {
	prep := prepared(t, tr, strip)
	bf := &bruteForce{b: newBase(prep, nil), verdicts: map[string][]uint16{}}
	if unpinned {
		for i := range bf.b.points {
			bf.b.points[i].Down = prep.Params.RestartDelay
		}
	}
	for _, av := range algVariants {
		e, err := newEngine(mutants.New, av.name, av.variant, prep)
		if err != nil {
			t.Fatal(err)
		}
		bf.engines = append(bf.engines, e)
	}
	return bf
}

// fataler is what the brute force needs of *testing.T and *rapid.T.
type fataler interface {
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// prepared returns tr as explore starts from it (params explicit, its
// fails stripped if asked).
func prepared(t fataler, tr *trace.Trace, strip bool) *trace.Trace {
	o := Options{StripFailures: strip}
	if err := o.normalize(); err != nil {
		t.Fatal(err)
	}
	prep, err := Prepare(tr, o.Params, o.StripFailures)
	if err != nil {
		t.Fatal(err)
	}
	return prep
}

func key(pts []int32) string { return fmt.Sprint(pts) }

// verdict replays schedule pts once per variant (memoized).
func (bf *bruteForce) verdict(t fataler, pts []int32) []uint16 {
	k := key(pts)
	if v, ok := bf.verdicts[k]; ok {
		return v
	}
	var buf traceBuf
	tr := bf.b.build(pts, &buf, false)
	out := make([]uint16, len(bf.engines))
	for i, e := range bf.engines {
		var v verdict
		if err := fromScratch(e, tr, &v); err != nil {
			t.Fatalf("schedule %v: %v", pts, err)
		}
		out[i] = v.fails
	}
	bf.verdicts[k] = out
	return out
}

// compare checks every schedule of the full space against the canonical
// schedule of its class: the same properties must fail for every
// variant. It returns a description of the first mismatch ("" if none)
// and how many merged schedules had a violation (so a test can tell a
// vacuous pass).
func (bf *bruteForce) compare(t fataler, k int) (string, int) {
	violating := 0
	mismatch := ""
	bf.b.each(k, false, func(pts []int32, _ int64) bool {
		c := append([]int32(nil), pts...)
		bf.b.canonicalize(c)
		if key(c) == key(pts) {
			return true
		}
		if ok, _ := bf.b.canonical(c); !ok {
			mismatch = fmt.Sprintf("canonicalize(%v) = %v, which is not canonical", pts, c)
			return false
		}
		got, want := bf.verdict(t, pts), bf.verdict(t, c)
		for i := range got {
			if got[i] != 0 {
				violating++
			}
			if got[i] != want[i] {
				av := algVariants[i]
				mismatch = fmt.Sprintf("%s/%q: schedule %v fails %s, its class's canonical %v fails %s",
					av.name, av.variant, bf.describe(pts), props(got[i]), bf.describe(c), props(want[i]))
				return false
			}
		}
		return true
	})
	return mismatch, violating
}

func (bf *bruteForce) describe(pts []int32) string {
	var s []string
	for _, g := range pts {
		s = append(s, bf.b.describe(&bf.b.points[g]))
	}
	return fmt.Sprint(s)
}

func props(mask uint16) []string {
	var out []string
	for i, p := range Properties {
		if mask&(1<<i) != 0 {
			out = append(out, p)
		}
	}
	return out
}

// smallTraces draws gentest traces small enough to brute-force with two
// failures.
func smallTraces() *rapid.Generator[*trace.Trace] {
	return gentest.Trace().Filter(func(tr *trace.Trace) bool { return len(tr.Events) <= 24 })
}

// TestReductionSound is the brute-force soundness test of the
// equivalence reduction (docs/explore.md): on random small traces, with
// and without their own failures, every schedule with up to two injected
// failures fails exactly the properties its class's canonical schedule
// fails, for MS, PK and every broken variant.
func TestReductionSound(t *testing.T) {
	violating := 0
	rapid.Check(t, func(rt *rapid.T) {
		tr := smallTraces().Draw(rt, "trace")
		strip := rapid.Bool().Draw(rt, "strip")
		bf := newBruteForce(rt, tr, strip, false)
		k := 2
		if len(bf.b.points) > 16 {
			k = 1
		}
		msg, v := bf.compare(rt, k)
		if msg != "" {
			rt.Fatal(msg)
		}
		violating += v
	})
	if violating == 0 {
		t.Fatal("no merged schedule had a violation: the comparison was vacuous")
	}
	t.Logf("%d merged (schedule, variant) pairs with violations agreed with their class", violating)
}

// TestNaiveReductionUnsound keeps the counterexample that made explore pin
// a crash's restart to the end of its quiet stretch (docs/explore.md).
// P0 computes at 0 and sends m1 at 1; P1 receives it at 1.1 and then
// crashes too. A crash of P0 at 0 and one at 1 lie in the same quiet
// stretch, yet if P0 restarts restart_delay after each, its re-execution
// (and m1's new copy) meets P1's recovery at different moments, and PK
// without tokens ends with m1 lost in one schedule only. Pinned, both
// crashes restart at 2 and agree.
func TestNaiveReductionUnsound(t *testing.T) {
	tr, err := tracetest.NewBuilder("P0", "P1").
		Internal(0, "P0").
		Send(1, "P0", "P1", "m1").
		Recv(1.1, "P1", "m1").
		Build()
	if err != nil {
		t.Fatal(err)
	}
	if msg, _ := newBruteForce(t, tr, false, true).compare(t, 2); msg == "" {
		t.Error("unpinned restarts: the reduction found no mismatch; the counterexample no longer shows why pinning is needed")
	} else {
		t.Logf("unpinned: %s", msg)
	}
	if msg, _ := newBruteForce(t, tr, false, false).compare(t, 2); msg != "" {
		t.Errorf("pinned restarts: %s", msg)
	}
}

// TestReductionStats: the figures a reduced exploration reports over the
// whole space — failing schedules per property, ops undone per failure
// (mean, max), the uncoordinated baseline, the most ops undone and
// processes rolled back — equal those of running every schedule. (Extra
// rollback is measured at each class's representative: docs/explore.md.)
func TestReductionStats(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		tr := smallTraces().Draw(rt, "trace")
		o := Options{
			Algorithms:    []string{"ms", "pk"},
			Variant:       rapid.SampledFrom([]string{"", "textbook", "no-log", "no-forced"}).Draw(rt, "variant"),
			Failures:      rapid.IntRange(1, 2).Draw(rt, "k"),
			StripFailures: rapid.Bool().Draw(rt, "strip"),
			Workers:       1,
			New:           mutants.New,
		}
		reduced, err := Run(context.Background(), tr, o)
		if err != nil {
			rt.Fatal(err)
		}
		o.NoReduce = true
		full, err := Run(context.Background(), tr, o)
		if err != nil {
			rt.Fatal(err)
		}
		if reduced.Scope.Covered.Cmp(full.Scope.Covered) != 0 || full.Scope.Run != full.Scope.Covered.Int64() {
			rt.Fatalf("covered: reduced %s, full %s (run %d)", reduced.Scope.Covered, full.Scope.Covered, full.Scope.Run)
		}
		if reduced.Baseline != full.Baseline {
			rt.Fatalf("baseline: reduced %+v, full %+v", reduced.Baseline, full.Baseline)
		}
		for a := range full.Algorithms {
			ra, fa := &reduced.Algorithms[a], &full.Algorithms[a]
			for i := range fa.Properties {
				if ra.Properties[i].Failing != fa.Properties[i].Failing {
					rt.Fatalf("%s %s: reduced %d failing, full %d", fa.Algorithm, fa.Properties[i].Name, ra.Properties[i].Failing, fa.Properties[i].Failing)
				}
			}
			if ra.PerFailure != fa.PerFailure {
				rt.Fatalf("%s per failure: reduced %+v, full %+v", fa.Algorithm, ra.PerFailure, fa.PerFailure)
			}
			if ra.Worst.Undone.Value != fa.Worst.Undone.Value || ra.Worst.Processes.Value != fa.Worst.Processes.Value {
				rt.Fatalf("%s worst: reduced %d/%d, full %d/%d", fa.Algorithm, ra.Worst.Undone.Value, ra.Worst.Processes.Value, fa.Worst.Undone.Value, fa.Worst.Processes.Value)
			}
		}
	})
}

// fromScratch fills v as explore does for tr, but without sharing: tr
// replayed whole, its run judged by a fresh stream.
func fromScratch(e engine, tr *trace.Trace, v *verdict) error {
	alg, err := e.mk(e.name, e.variant, tr)
	if err != nil {
		return err
	}
	run, err := replay.Run(tr, alg, replay.Options{Variant: e.variant})
	if err != nil {
		return err
	}
	st := consistency.NewStream(run, tr, len(run.Events))
	for i := range run.Events {
		st.Add(&run.Events[i])
	}
	v.judge(st, nil, nil, 0)
	return nil
}
