package render

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/ckpt-dev/ckpt/explore"
	"github.com/ckpt-dev/ckpt/internal/golden"
)

// exploreCases are the explorations the goldens show: a clean one through both
// algorithms, the textbook weakness with its witness, and a sampled run
// with delays in a shard.
var exploreCases = []struct {
	name, trace string
	opts        explore.Options
	// stopAfter stops the exploration after so many schedules (0: never).
	stopAfter int64
}{
	{"clean", "../testdata/traces/forced.json", explore.Options{Failures: 1}, 0},
	{"textbook", "../explore/testdata/textbook-concurrent.json", explore.Options{Algorithms: []string{"ms"}, Variant: "textbook", Failures: 2}, 0},
	{"sampled", "../testdata/traces/failure-free.json", explore.Options{Failures: 2, Delays: true, Budget: 40, Seed: 5, Shard: explore.Shard{Index: 1, Count: 2}}, 0},
	{"stopped", "../explore/testdata/textbook-concurrent.json", explore.Options{Algorithms: []string{"ms"}, Variant: "textbook", Failures: 2, Workers: 1}, 12},
	{"stopped-clean", "../testdata/traces/forced.json", explore.Options{Failures: 1, Workers: 1}, 3},
}

func exploreResults(t *testing.T) map[string]*explore.Result {
	t.Helper()
	out := map[string]*explore.Result{}
	for _, c := range exploreCases {
		tr, err := codec.ReadTraceFile(c.trace)
		if err != nil {
			t.Fatal(err)
		}
		tr.Name = filepath.Base(c.trace)
		ctx, cancel := context.WithCancel(context.Background())
		if c.stopAfter > 0 {
			c.opts.Progress = func(done, _ int64) {
				if done == c.stopAfter {
					cancel() // as SIGINT does
				}
			}
		}
		r, err := explore.Run(ctx, tr, c.opts)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		for a := range r.Algorithms {
			alg := &r.Algorithms[a]
			for p := range alg.Properties {
				if w := alg.Properties[p].Witness; w != nil {
					w.Path = "witnesses/" + alg.Algorithm + "-" + alg.Properties[p].Name + ".json"
				}
			}
		}
		out[c.name] = r
	}
	return out
}

// TestGolden renders every case in every format (and quiet) and compares
// with testdata/NAME.FORMAT.golden; -update rewrites them.
func TestExploreGolden(t *testing.T) {
	rs := exploreResults(t)
	for _, c := range exploreCases {
		for _, f := range append(Formats, "quiet") {
			var buf bytes.Buffer
			opts := Options{Quiet: f == "quiet"}
			format := f
			if f == "quiet" {
				format = Text
			}
			if err := Explore(&buf, format, rs[c.name], opts); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, "explore/"+c.name+"."+string(f)+".golden", buf.Bytes())
		}
	}
}

// TestWellFormed: the JSON is one object that decodes to the same
// result, and the JUnit is XML with one failing testcase per failing
// (algorithm, property).
func TestExploreWellFormed(t *testing.T) {
	for name, r := range exploreResults(t) {
		var buf bytes.Buffer
		if err := Explore(&buf, JSON, r, Options{}); err != nil {
			t.Fatal(err)
		}
		var back explore.Result
		if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
			t.Fatalf("%s: json: %v", name, err)
		}
		if back.Valid != r.Valid || back.Scope.Schedules.Cmp(r.Scope.Schedules) != 0 || len(back.Algorithms) != len(r.Algorithms) {
			t.Errorf("%s: json round trip lost data", name)
		}
		buf.Reset()
		if err := Explore(&buf, JUnit, r, Options{}); err != nil {
			t.Fatal(err)
		}
		var doc junitSuites
		if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatalf("%s: junit: %v", name, err)
		}
		want := 0
		for _, a := range r.Algorithms {
			for _, p := range a.Properties {
				if p.Failing > 0 {
					want++
				}
			}
		}
		if doc.Failures != want || strings.Count(buf.String(), "<failure ") != want {
			t.Errorf("%s: junit has %d failures, want %d", name, doc.Failures, want)
		}
	}
}

// TestBadFormat: an unknown format is an error, not a silent default.
func TestExploreBadFormat(t *testing.T) {
	if err := Explore(&bytes.Buffer{}, "yaml", &explore.Result{}, Options{}); err == nil {
		t.Error("format yaml accepted")
	}
}

// TestErrorGolden: a file explore could not read is reported in every
// format (and quiet), as verify reports one; the JSON decodes, and the
// JUnit counts one error.
func TestExploreErrorGolden(t *testing.T) {
	const msg = "trace event 1: recv of unknown message \"m9\" (no event sends it)"
	for _, f := range append(Formats, "quiet") {
		var buf bytes.Buffer
		format := f
		if f == "quiet" {
			format = Text
		}
		if err := ExploreError(&buf, format, "bad.json", msg, Options{Quiet: f == "quiet"}); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "explore/error."+string(f)+".golden", buf.Bytes())
		switch f {
		case JSON:
			var e exploreErrorEntry
			if err := json.Unmarshal(buf.Bytes(), &e); err != nil || e.Verdict != "error" || e.Error != msg || e.Valid {
				t.Errorf("json error entry %+v (%v)", e, err)
			}
		case JUnit:
			var doc junitSuites
			if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil || doc.Errors != 1 || !strings.Contains(buf.String(), "<error ") {
				t.Errorf("junit error entry: %v\n%s", err, buf.String())
			}
		}
		if !strings.Contains(buf.String(), "bad.json") {
			t.Errorf("%s: the file is not named:\n%s", f, buf.String())
		}
	}
}
