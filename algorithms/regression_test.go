package algorithms_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/consistency/report"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen/gentest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// regressionDir holds traces that once failed a property test, shrunk by
// rapid. kill-ALG-VARIANT.json files are rapid's minimal traces on which
// a mutant's target property fails; every other file is a trace on which
// a real algorithm or the checker once went wrong.
const regressionDir = "testdata/regressions"

// TestRegressions replays every saved trace: both real algorithms must
// verify it clean, and a kill-ALG-VARIANT trace must still make that
// mutant fail its target property. With -update, the kill files are
// searched for anew by rapid and rewritten (shrunk to a minimum).
func TestRegressions(t *testing.T) {
	if *update {
		writeKills(t)
	}
	files, err := filepath.Glob(filepath.Join(regressionDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	kills := 0
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".json"), func(t *testing.T) {
			tr, err := trace.ReadTraceFile(f)
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

// writeKills lets rapid find and shrink, for each mutant, a trace on
// which its target property fails, and saves it.
func writeKills(t *testing.T) {
	if err := flag.Set("rapid.nofailfile", "true"); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(regressionDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, m := range mutants {
		p := targets[m[0]+"/"+m[1]][0]
		var minimal *trace.Trace
		// gentest's step structure shrinks to the fewest events; the
		// generator's configs are the fallback for rarer defects.
		for _, g := range []*rapid.Generator[*trace.Trace]{gentest.Trace(), traces()} {
			if minimal != nil {
				break
			}
			rapid.Check(&recorder{}, func(rt *rapid.T) {
				tr := g.Draw(rt, "trace")
				r := consistency.Check(replayWith(rt, tr, m[0], m[1]), tr)
				if status(r, p) == report.Fail {
					run := replayWith(rt, tr, m[0], "")
					if consistency.Check(run, tr).Valid {
						minimal = tr // rapid runs the minimal case last
						rt.Fatalf("killed")
					}
				}
			})
		}
		if minimal == nil {
			t.Errorf("%s/%s: rapid found no trace failing %s", m[0], m[1], p)
			continue
		}
		var b bytes.Buffer
		if err := trace.WriteTrace(&b, minimal, trace.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(regressionDir, "kill-"+m[0]+"-"+m[1]+".json")
		if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d events", name, len(minimal.Events))
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
