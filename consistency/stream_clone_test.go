package consistency_test

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/algorithms/mutants"
	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/codec"
	"github.com/ckpt-dev/ckpt/trace/gen"
	"github.com/ckpt-dev/ckpt/trace/gen/gentest"
)

// TestStreamCloneAgrees: a stream cloned at any event of a run and fed
// the rest reports, and models, exactly what a fresh stream fed the
// whole run does — for every algorithm, variant and mutant, on generated
// traces with failures (the placement protocols': without, as they
// replay only those), the stream cloned at each event being the clone
// of the one cloned at the event before. The clone must share nothing the original may
// still write: every slice, map and pointer reachable from it is its
// own (sharedWith), but for the run, the traces and what is never
// written again, and the original, fed the rest and judged first,
// leaves the clone's verdict unchanged.
func TestStreamCloneAgrees(t *testing.T) {
	type engine struct{ algo, variant string }
	var engines []engine
	for _, name := range algorithms.AllNames {
		engines = append(engines, engine{name, ""})
	}
	engines = append(engines, engine{"ms", "textbook"})
	for _, m := range append(mutants.All[:len(mutants.All):len(mutants.All)], mutants.Placement...) {
		engines = append(engines, engine{m.Algo, m.Name})
	}
	for _, en := range engines {
		a, _ := algorithms.Lookup(en.algo)
		t.Run(en.algo+"/"+en.variant, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				c := gentest.Config().Draw(t, "config")
				c.Events = min(c.Events, 20)
				if !a.Recovery {
					c.Failures = 0
				}
				tr := generatedTrace(t, c)
				alg, err := mutants.New(en.algo, en.variant, tr)
				if err != nil {
					t.Fatal(err)
				}
				run, err := replay.Run(tr, alg, replay.Options{Variant: en.variant})
				if err != nil {
					t.Fatal(err)
				}
				n := len(run.Events)
				fresh := consistency.NewStream(run, tr, n)
				for i := range run.Events {
					fresh.Add(&run.Events[i])
				}
				want := fresh.Report()
				// The stream cloned at k is a clone of a clone of … the
				// stream, once per event before k.
				chain := consistency.NewSharedStream(run, tr, n)
				for k := 0; k <= n; k++ {
					cl := chain.Clone(run, tr, 0)
					if shared := sharedWith(reflect.ValueOf(cl), reflect.ValueOf(chain), "stream", map[uintptr]bool{}); shared != "" {
						t.Fatalf("cloned at seq %d, the clone shares %s with the original", k, shared)
					}
					next := chain.Clone(run, tr, 0)
					for i := k; i < n; i++ {
						chain.Add(&run.Events[i])
					}
					chain.Report()
					for i := k; i < n; i++ {
						cl.Add(&run.Events[i])
					}
					if got := cl.Report(); !reflect.DeepEqual(got, want) {
						t.Fatalf("cloned at seq %d:\n%s\nfresh:\n%s", k, dumpReport(got), dumpReport(want))
					}
					if !reflect.DeepEqual(cl.Model(), fresh.Model()) {
						t.Fatalf("cloned at seq %d: the model differs from a fresh stream's", k)
					}
					if chain = next; k < n {
						chain.Add(&run.Events[k])
					}
				}
			})
		})
	}
}

// immutable are the types a clone shares with its original by design:
// the run and the traces, vectors (never written once made), PK
// announcements (replaced, never written) and kept witnesses.
var immutable = map[reflect.Type]bool{
	reflect.TypeFor[*trace.Run]():                     true,
	reflect.TypeFor[*trace.Trace]():                   true,
	reflect.TypeFor[trace.VT]():                       true,
	reflect.TypeFor[*history.Announcement]():          true,
	reflect.TypeFor[report.Violation]():               true,
	reflect.TypeFor[func(p, ci int32) (bool, bool)](): true,
}

// sharedWith returns the path of the first slice, map or pointer that a
// and b, a value and its clone, share (other than the immutable types),
// or "". It walks every field, exported or not, so a field added later
// and left out of Clone is found.
func sharedWith(a, b reflect.Value, path string, seen map[uintptr]bool) string {
	if immutable[a.Type()] {
		return ""
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return ""
		}
		if a.Pointer() == b.Pointer() {
			return path
		}
		if seen[a.Pointer()] {
			return ""
		}
		seen[a.Pointer()] = true
		return sharedWith(a.Elem(), b.Elem(), path, seen)
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return ""
		}
		return sharedWith(a.Elem(), b.Elem(), path, seen)
	case reflect.Map:
		if !a.IsNil() && a.Pointer() == b.Pointer() {
			return path
		}
	case reflect.Slice:
		if a.Cap() > 0 && b.Cap() > 0 && a.Pointer() == b.Pointer() {
			return path
		}
		for i := range min(a.Len(), b.Len()) {
			if s := sharedWith(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i), seen); s != "" {
				return s
			}
		}
	case reflect.Array:
		for i := range a.Len() {
			if s := sharedWith(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i), seen); s != "" {
				return s
			}
		}
	case reflect.Struct:
		for i := range a.NumField() {
			if s := sharedWith(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name, seen); s != "" {
				return s
			}
		}
	}
	return ""
}

// generatedTrace is the trace gen makes of c.
func generatedTrace(t *rapid.T, c gen.Config) *trace.Trace {
	var buf bytes.Buffer
	if _, err := gen.Write(&buf, c, codec.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	tr, err := codec.ReadTrace("gen.json", &buf)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}
