package algorithms_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/internal/golden"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen/gentest"
)

// regressionDir holds traces that once failed a property test, shrunk by
// rapid. kill-ALG-VARIANT.json files are rapid's minimal traces on which
// a mutant's target property fails; every other file is a trace on which
// a real algorithm or the checker once went wrong.
const regressionDir = "testdata/regressions"

// TestRegressions replays every saved trace: both real algorithms must
// verify it clean, and a kill-ALG-VARIANT trace must still make that
// mutant fail its target property. With -update, a kill file that is
// missing or no longer kills its mutant is searched for anew by rapid and
// rewritten (shrunk to a minimum); one that still kills is kept.
func TestRegressions(t *testing.T) {
	if golden.Update() {
		writeKills(t)
	}
	files, err := filepath.Glob(filepath.Join(regressionDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	kills := 0
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".json"), func(t *testing.T) {
			tr, err := codec.ReadTraceFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range sound {
				run := replayWith(t, tr, a[0], a[1])
				assertClean(t, tr, run, a[0], consistency.Check(run, tr))
			}
			m, ok := killedMutant(filepath.Base(f))
			if !ok {
				return
			}
			kills++
			r := consistency.Check(replayWith(t, tr, m[0], m[1]), tr)
			p := targets[m[0]+"/"+m[1]][0]
			if status(r, p) != report.Fail {
				t.Errorf("%s/%s: %s is %s on its minimal killing trace, want fail\n%s", m[0], m[1], p, status(r, p), dump(r))
			}
		})
	}
	if kills != len(mutants) {
		t.Errorf("%d kill-*.json traces, want one per mutant (%d); run with -update", kills, len(mutants))
	}
}

// killedMutant parses kill-ALG-VARIANT.json.
func killedMutant(base string) ([2]string, bool) {
	for _, m := range mutants {
		if base == "kill-"+m[0]+"-"+m[1]+".json" {
			return m, true
		}
	}
	return [2]string{}, false
}

// writeKills lets rapid find and shrink, for each mutant whose kill file
// is missing or no longer kills it, a trace on which its target property
// fails, and saves it. A kill file that still kills is kept, so that
// -update on a clean tree changes nothing; the search is seeded (unless
// -rapid.seed says otherwise), so that it is reproducible.
func writeKills(t *testing.T) {
	restore := setRapidFlags(t)
	defer restore()
	if err := os.MkdirAll(regressionDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, m := range mutants {
		p := targets[m[0]+"/"+m[1]][0]
		name := filepath.Join(regressionDir, "kill-"+m[0]+"-"+m[1]+".json")
		if tr, err := codec.ReadTraceFile(name); err == nil && kills(t, tr, m, p) {
			continue
		}
		var minimal *trace.Trace
		// gentest's step structure shrinks to the fewest events; the
		// mixed generator's long traces are the fallback for rarer
		// defects.
		for _, g := range []*rapid.Generator[*trace.Trace]{gentest.Trace(), traces()} {
			if minimal != nil {
				break
			}
			rapid.Check(&recorder{}, func(rt *rapid.T) {
				if tr := g.Draw(rt, "trace"); kills(rt, tr, m, p) {
					minimal = tr // rapid runs the minimal case last
					rt.Fatalf("killed")
				}
			})
		}
		if minimal == nil {
			t.Errorf("%s/%s: rapid found no trace failing %s", m[0], m[1], p)
			continue
		}
		var b bytes.Buffer
		if err := codec.WriteTrace(&b, minimal, codec.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d events", name, len(minimal.Events))
	}
}

// kills reports whether tr makes mutant m fail property p while the
// real algorithm m[0] verifies it clean.
func kills(t tb, tr *trace.Trace, m [2]string, p string) bool {
	if status(consistency.Check(replayWith(t, tr, m[0], m[1]), tr), p) != report.Fail {
		return false
	}
	return consistency.Check(replayWith(t, tr, m[0], ""), tr).Valid
}

// setRapidFlags makes rapid keep no fail files and, unless the command
// line chose a seed, draw from a fixed one; restore undoes both.
func setRapidFlags(t *testing.T) (restore func()) {
	seeded := false
	flag.Visit(func(f *flag.Flag) { seeded = seeded || f.Name == "rapid.seed" })
	old := map[string]string{}
	set := map[string]string{"rapid.nofailfile": "true"}
	if !seeded {
		set["rapid.seed"] = "1"
	}
	for name, v := range set {
		old[name] = flag.Lookup(name).Value.String()
		if err := flag.Set(name, v); err != nil {
			t.Fatal(err)
		}
	}
	return func() {
		for name, v := range old {
			_ = flag.Set(name, v)
		}
	}
}

// recorder is a rapid.TB that notes a failure instead of failing the
// test: writeKills wants the failing (shrunk) case, not a red test.
type recorder struct{ failed bool }

func (r *recorder) Helper()               {}
func (r *recorder) Name() string          { return "kill" }
func (r *recorder) Logf(string, ...any)   {}
func (r *recorder) Log(...any)            {}
func (r *recorder) Skipf(string, ...any)  {}
func (r *recorder) Skip(...any)           {}
func (r *recorder) SkipNow()              {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Error(...any)          { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Fatal(...any)          { r.failed = true }
func (r *recorder) FailNow()              { r.failed = true }
func (r *recorder) Fail()                 { r.failed = true }
func (r *recorder) Failed() bool          { return r.failed }
