package explore

import (
	"bytes"
	"context"
	"encoding/json"
	"math/big"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/codec"
)

func readTrace(t testing.TB, path string) *trace.Trace {
	t.Helper()
	tr, err := codec.ReadTraceFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func bundled(t testing.TB) []string {
	t.Helper()
	paths, err := filepath.Glob("../testdata/traces/*.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no bundled traces: %v", err)
	}
	return paths
}

func mustRun(t testing.TB, tr *trace.Trace, o Options) *Result {
	t.Helper()
	r, err := Run(context.Background(), tr, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestBundledTracesClean: the default MS and PK recover from every
// placement of one or two failures (and, with one, every delay choice)
// on the bundled traces, with and without their own failures.
func TestBundledTracesClean(t *testing.T) {
	for _, path := range bundled(t) {
		tr := readTrace(t, path)
		for _, o := range []Options{
			{Failures: 1}, {Failures: 2}, {Failures: 2, StripFailures: true}, {Failures: 1, Delays: true},
		} {
			r := mustRun(t, tr, o)
			if !r.Valid {
				t.Errorf("%s %+v: %s", path, o, failing(r))
			}
			if r.Scope.Mode != Exhaustive || r.Scope.Coverage != 1 {
				t.Errorf("%s %+v: mode %s coverage %v, want exhaustive 1", path, o, r.Scope.Mode, r.Scope.Coverage)
			}
		}
	}
}

func failing(r *Result) []string {
	var out []string
	for _, a := range r.Algorithms {
		for _, p := range a.Properties {
			if p.Failing > 0 {
				out = append(out, a.Algorithm+"/"+p.Name)
			}
		}
	}
	return out
}

// TestTextbookConcurrentFailures: from a failure-free trace, two
// concurrent failures with equal incarnations (SPEC §4.2) break the
// textbook rules — P1 delivers m1, whose send P0's recovery undid — while
// the default MS and PK survive the same space.
func TestTextbookConcurrentFailures(t *testing.T) {
	tr := readTrace(t, "testdata/textbook-concurrent.json")
	r := mustRun(t, tr, Options{Algorithms: []string{"ms"}, Variant: "textbook", Failures: 2})
	if r.Valid {
		t.Fatal("textbook MS survives two failures")
	}
	of := property(t, &r.Algorithms[0], "orphan-free")
	if of.Witness == nil {
		t.Fatal("no orphan-free witness")
	}
	procs := map[string]bool{}
	for _, f := range of.Witness.Schedule.Failures {
		procs[f.P] = true
	}
	if len(procs) != 2 {
		t.Errorf("witness schedule %+v: want two different processes failing", of.Witness.Schedule)
	}
	if clean := mustRun(t, tr, Options{Failures: 2}); !clean.Valid {
		t.Errorf("default MS/PK: %s", failing(clean))
	}
}

func property(t testing.TB, a *AlgorithmResult, name string) *PropertyResult {
	t.Helper()
	for i := range a.Properties {
		if a.Properties[i].Name == name {
			return &a.Properties[i]
		}
	}
	t.Fatalf("%s: no property %s", a.Algorithm, name)
	return nil
}

// TestWitnessShrunk: every witness still fails its property through the
// same algorithm, and is no larger than the schedule it comes from —
// strictly smaller on a trace with events irrelevant to the failure.
func TestWitnessShrunk(t *testing.T) {
	for _, path := range []string{"testdata/small.json", "../testdata/traces/failure-free.json"} {
		tr := readTrace(t, path)
		r := mustRun(t, tr, Options{Algorithms: []string{"ms"}, Variant: "textbook", Failures: 2})
		if r.Valid {
			t.Fatalf("%s: textbook survives", path)
		}
		e, _ := newEngine(nil, "ms", "textbook", tr)
		for i, p := range r.Algorithms[0].Properties {
			w := p.Witness
			if w == nil {
				continue
			}
			if err := trace.Validate(cloneTrace(w.Trace)); err != nil {
				t.Errorf("%s %s: witness invalid: %v", path, p.Name, err)
			}
			if !e.failsProperty(w.Trace, i) {
				t.Errorf("%s %s: witness does not fail it", path, p.Name)
			}
			if w.Events >= w.OriginalEvents {
				t.Errorf("%s %s: witness has %d events, its schedule %d", path, p.Name, w.Events, w.OriginalEvents)
			}
		}
	}
}

// TestDeterministic: the same options give byte-identical results
// whatever the number of workers and of cores.
func TestDeterministic(t *testing.T) {
	tr := readTrace(t, "../testdata/traces/failure-free.json")
	for _, o := range []Options{
		{Algorithms: []string{"ms"}, Variant: "textbook", Failures: 2},
		{Failures: 2, Delays: true, Budget: 300, Seed: 7},
	} {
		var outs [][]byte
		for _, procs := range []int{1, 2} {
			for _, workers := range []int{0, 1, 3} {
				old := runtime.GOMAXPROCS(procs)
				o.Workers = workers
				b, err := json.Marshal(mustRun(t, tr, o))
				runtime.GOMAXPROCS(old)
				if err != nil {
					t.Fatal(err)
				}
				outs = append(outs, b)
			}
		}
		for i := 1; i < len(outs); i++ {
			if !bytes.Equal(outs[0], outs[i]) {
				t.Errorf("%+v: result %d differs from result 0:\n%s\n%s", o, i, outs[0], outs[i])
			}
		}
	}
}

// TestShards: the shards of a space run disjoint sets of schedules whose
// union is the whole, and merging their JSON results gives exactly the
// whole run's result, witnesses included (Merge), for every split from
// 1 to 4 — exhaustive with a failing property, and sampled with delays.
func TestShards(t *testing.T) {
	tr := readTrace(t, "../testdata/traces/failure-free.json")
	for _, o := range []Options{
		{Algorithms: []string{"ms"}, Variant: "textbook", Failures: 2, ShrinkTests: 200},
		{Failures: 1, Delays: true, Budget: 100, Seed: 3},
	} {
		whole := scheduleKeys(t, tr, o)
		want := mustJSON(t, mustRun(t, tr, o))
		if o.Variant == "textbook" && !bytes.Contains(want, []byte(`"valid":false`)) {
			t.Fatal("textbook MS passes: the witnesses' merge is not tested")
		}
		for n := 1; n <= 4; n++ {
			seen := map[string]int{}
			var parts []*Result
			var names []string
			for i := n - 1; i >= 0; i-- {
				so := o
				so.Shard = Shard{Index: i, Count: n}
				for _, k := range scheduleKeys(t, tr, so) {
					seen[k]++
				}
				var part Result
				if err := json.Unmarshal(mustJSON(t, mustRun(t, tr, so)), &part); err != nil {
					t.Fatal(err)
				}
				parts, names = append(parts, &part), append(names, so.Shard.String())
			}
			for _, k := range whole {
				if seen[k] != 1 {
					t.Errorf("%+v n=%d: schedule %s run by %d shards", o, n, k, seen[k])
				}
			}
			if len(seen) != len(whole) {
				t.Errorf("%+v n=%d: shards ran %d schedules, the whole %d", o, n, len(seen), len(whole))
			}
			merged, err := Merge(parts, names)
			if err != nil {
				t.Fatal(err)
			}
			if got := mustJSON(t, merged); !bytes.Equal(got, want) {
				t.Errorf("%+v: %d shards merged:\n%s\nthe whole run:\n%s", o, n, got, want)
			}
		}
	}
}

// scheduleKeys lists the schedules an exploration runs as
// "vector/points" keys.
func scheduleKeys(t testing.TB, tr *trace.Trace, o Options) []string {
	t.Helper()
	x, err := newExplorer(context.Background(), tr, o)
	if err != nil {
		t.Fatal(err)
	}
	// The schedules this shard runs, as explore hands them to the tasks.
	var keys []string
	err = x.each(func(int64) {}, func(b *base, list []sched) bool {
		for _, s := range list {
			var ids []int32
			for _, g := range s.pts {
				ids = append(ids, b.points[g].ID)
			}
			keys = append(keys, string(mustJSON(t, []any{b.extra, ids})))
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

func mustJSON(t fataler, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSampling: beyond the budget the space is sampled — exactly Budget
// distinct schedules, the recorded trace first, the same for the same
// seed and different for another.
func TestSampling(t *testing.T) {
	tr := readTrace(t, "testdata/small.json")
	o := Options{Algorithms: []string{"pk"}, Failures: 2, Budget: 50, Seed: 1}
	a := scheduleKeys(t, tr, o)
	if len(a) != 50 {
		t.Fatalf("sampled %d schedules, want 50", len(a))
	}
	if a[0] != `[null,null]` {
		t.Errorf("first sampled schedule %s, want the recorded trace", a[0])
	}
	sorted := slices.Clone(a)
	slices.Sort(sorted)
	if len(slices.Compact(sorted)) != len(a) {
		t.Error("sample repeats a schedule")
	}
	if b := scheduleKeys(t, tr, o); !slices.Equal(a, b) {
		t.Error("same seed, different sample")
	}
	o.Seed = 2
	if b := scheduleKeys(t, tr, o); slices.Equal(a, b) {
		t.Error("different seeds, same sample")
	}
	r := mustRun(t, tr, o)
	if r.Scope.Mode != Sampled || r.Scope.Run != 50 || r.Scope.Coverage >= 1 || r.Scope.Coverage <= 0 {
		t.Errorf("scope %+v: want sampled, 50 run, partial coverage", r.Scope)
	}
}

// TestSpaceCount: the closed-form counts of a failure space agree with
// the schedules the enumeration yields, reduced or not.
func TestSpaceCount(t *testing.T) {
	paths := append(bundled(t), "testdata/small.json")
	for _, path := range paths {
		tr := readTrace(t, path)
		for _, strip := range []bool{false, true} {
			b := newBase(prepared(t, tr, strip), nil)
			for k := 0; k <= 3; k++ {
				full, classes := b.spaceSize(k, true)
				var n, cover int64
				b.each(k, true, func(_ []int32, size int64) bool { n++; cover += size; return true })
				var all int64
				b.each(k, false, func([]int32, int64) bool { all++; return true })
				if classes.Int64() != n || full.Int64() != all || cover != all {
					t.Errorf("%s strip=%v k=%d: counted %s/%s, enumerated %d classes covering %d of %d", path, strip, k, classes, full, n, cover, all)
				}
			}
		}
	}
}

// TestDefaultAlgorithmsClean: on random small traces, with or without
// their own failures, no placement of one or two injected failures breaks
// the default MS or PK. A failure here is a bug in an algorithm, the
// engine or the checker: keep its shrunk witness (docs/explore.md).
func TestDefaultAlgorithmsClean(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		tr := smallTraces().Draw(rt, "trace")
		o := Options{Failures: rapid.IntRange(1, 2).Draw(rt, "k"), StripFailures: rapid.Bool().Draw(rt, "strip"), Workers: 1}
		r, err := Run(context.Background(), tr, o)
		if err != nil {
			rt.Fatal(err)
		}
		if !r.Valid {
			rt.Fatalf("%s fail; first witness:\n%s", failing(r), witnessJSON(rt, r))
		}
	})
}

// witnessJSON writes the first witness of r as a trace file, for a
// failure message.
func witnessJSON(t fataler, r *Result) string {
	for _, a := range r.Algorithms {
		for _, p := range a.Properties {
			if p.Witness != nil {
				var b bytes.Buffer
				if err := codec.WriteTrace(&b, p.Witness.Trace, codec.WriteOptions{}); err != nil {
					t.Fatal(err)
				}
				return a.Algorithm + " " + p.Name + ":\n" + b.String()
			}
		}
	}
	return ""
}

// TestShardOf: a shard's count of the ordinals below n is the number it
// has (the progress total of a shard).
func TestShardOf(t *testing.T) {
	for _, sh := range []Shard{{}, {0, 1}, {0, 3}, {2, 3}, {4, 5}} {
		for n := int64(0); n < 12; n++ {
			want := int64(0)
			for o := int64(0); o < n; o++ {
				if sh.has(o) {
					want++
				}
			}
			if got := sh.of(n); got != want {
				t.Errorf("%v.of(%d) = %d, want %d", sh, n, got, want)
			}
		}
	}
}

// TestMergeRefusesContradictions: a shard result whose property status
// its failing count refutes (an edited or corrupt file) is refused, in
// both directions, rather than merged into a report that contradicts
// itself (a review's finding: merge combines the shards' statuses).
func TestMergeRefusesContradictions(t *testing.T) {
	tr := readTrace(t, "../testdata/traces/failure-free.json")
	o := Options{Algorithms: []string{"ms"}, Variant: "textbook", Failures: 2, ShrinkTests: 200}
	shards := func() ([]*Result, []string) {
		var parts []*Result
		var names []string
		for i := range 2 {
			so := o
			so.Shard = Shard{Index: i, Count: 2}
			var part Result
			if err := json.Unmarshal(mustJSON(t, mustRun(t, tr, so)), &part); err != nil {
				t.Fatal(err)
			}
			parts, names = append(parts, &part), append(names, so.Shard.String())
		}
		return parts, names
	}
	// anyProp edits the first property edit takes.
	anyProp := func(edit func(p *PropertyResult) bool) func(r *Result) bool {
		return func(r *Result) bool {
			for a := range r.Algorithms {
				for i := range r.Algorithms[a].Properties {
					if edit(&r.Algorithms[a].Properties[i]) {
						return true
					}
				}
			}
			return false
		}
	}
	for _, tc := range []struct {
		name, want string
		edit       func(r *Result) bool
	}{
		{"fail said pass", "fails exactly when", anyProp(func(p *PropertyResult) bool {
			if p.Status != report.Fail {
				return false
			}
			p.Status = report.Pass
			return true
		})},
		{"pass said fail", "fails exactly when", anyProp(func(p *PropertyResult) bool {
			if p.Status != report.Pass {
				return false
			}
			p.Status = report.Fail
			return true
		})},
		// redteam6's edits: more schedules run than set out, a negative
		// baseline, a witness another shard runs.
		{"run over to_run", "it ran", func(r *Result) bool { r.Scope.Run = r.Scope.ToRun + 1; return true }},
		{"negative baseline", "baseline counts are negative", func(r *Result) bool { r.Baseline.Failures = -5; return true }},
		{"replayed over failing", "failing schedules replayed of", anyProp(func(p *PropertyResult) bool {
			p.FailingClasses = p.Failing + 1
			return true
		})},
		{"witness trace corrupt", "the witness trace of", anyProp(func(p *PropertyResult) bool {
			if p.Witness == nil {
				return false
			}
			p.Witness.Doc = json.RawMessage(`{"format":"ckpt/trace@1","processes":["P0"],"events":[{"t":0,"kind":"internal"}]}`)
			return true
		})},
		{"witness of another shard", "which shard", anyProp(func(p *PropertyResult) bool {
			if p.Witness == nil {
				return false
			}
			p.Witness.Schedule.Ordinal++
			return true
		})},
		// redteam8's: a name that would write a witness outside --out,
		// figures above the space, a failing property with no witness, a
		// witness trace swapped for another.
		{"algorithm as a path", "none that ckpt explores", func(r *Result) bool {
			r.Algorithms[0].Algorithm = "../../evil/victim"
			return true
		}},
		{"to_run inflated", "yet was not stopped", func(r *Result) bool { r.Scope.ToRun += 9999; return true }},
		{"unknown property", "no property ckpt checks", anyProp(func(p *PropertyResult) bool { p.Name = "../x"; return true })},
		{"covered over the space", "cover", func(r *Result) bool { r.Scope.Covered.Add(r.Scope.Schedules, big.NewInt(1)); return true }},
		{"failing over covered", "the shard covered", anyProp(func(p *PropertyResult) bool {
			if p.Witness == nil {
				return false
			}
			p.Failing += 9999
			return true
		})},
		{"failing with no witness", "no witness", anyProp(func(p *PropertyResult) bool {
			p.Witness = nil
			return p.Failing > 0
		})},
		{"witness sizes not its trace's", "sizes", anyProp(func(p *PropertyResult) bool {
			if p.Witness == nil {
				return false
			}
			p.Witness.Events++
			return true
		})},
		{"witness passes", "does not fail it", anyProp(func(p *PropertyResult) bool {
			if p.Witness == nil {
				return false
			}
			p.Witness.Doc = json.RawMessage(`{"format":"ckpt/trace@1","processes":["P0"],"events":[{"t":0,"p":"P0","kind":"internal"}]}`)
			p.Witness.Events, p.Witness.Processes, p.Witness.Messages = 1, 1, 0
			return true
		})},
	} {
		parts, names := shards()
		edited := false
		for _, part := range parts {
			edited = tc.edit(part) || edited
		}
		if !edited {
			t.Fatalf("%s: nothing to edit", tc.name)
		}
		if _, err := Merge(parts, names); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: merge gives %v, want a refusal saying %q", tc.name, err, tc.want)
		}
	}
	if _, err := Merge(shards()); err != nil {
		t.Fatalf("unedited shards: %v", err)
	}
}
