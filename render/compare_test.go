package render

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/ckpt-dev/ckpt/compare"
	"github.com/ckpt-dev/ckpt/internal/golden"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// examples are the bundled traces the golden tables show: MS's forced
// checkpoint (its failure left out), the domino zigzag, and a trace
// without failures.
var examples = []string{"forced.json", "domino.json", "failure-free.json"}

func exampleTables(t *testing.T, o compare.Options) []compare.Table {
	t.Helper()
	var out []compare.Table
	for _, name := range examples {
		tr, err := codec.ReadTraceFile(filepath.Join("../testdata/traces", name))
		if err != nil {
			t.Fatal(err)
		}
		tr.Name = name
		tab, err := compare.Run(tr, o)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tab)
	}
	return out
}

// TestCompareGolden: the tables of the bundled examples in every format.
func TestCompareGolden(t *testing.T) {
	tables := exampleTables(t, compare.Options{Workers: 2})
	for _, f := range CompareFormats {
		var b bytes.Buffer
		if err := Compare(&b, f, tables, Options{}); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "compare/examples."+string(f), b.Bytes())
	}
}

// TestCompareJSONShape: --format json is one array of objects, each with at
// least the fields the issue names, one per trace and protocol.
func TestCompareJSONShape(t *testing.T) {
	tables := exampleTables(t, compare.Options{NoFailures: true, Protocols: []string{"bcs", "ms"}})
	var b bytes.Buffer
	if err := Compare(&b, JSON, tables, Options{}); err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(b.Bytes(), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2*len(examples) {
		t.Fatalf("%d rows, want %d", len(rows), 2*len(examples))
	}
	for i, r := range rows {
		for _, k := range []string{"file", "protocol", "basic", "forced", "useless", "piggyback_bytes"} {
			if _, ok := r[k]; !ok {
				t.Errorf("row %d lacks %q: %v", i, k, r)
			}
		}
		if r["per_failure"] != nil {
			t.Errorf("row %d: per_failure measured with NoFailures", i)
		}
	}
	if rows[0]["protocol"] != "bcs" || rows[1]["protocol"] != "ms" || rows[0]["file"] != "forced.json" {
		t.Errorf("rows out of order: %v, %v", rows[0], rows[1])
	}
}

// smallSweep is compare's small grid of its tests: small enough for unit
// tests, and still the classic shape.
func smallSweep(t *testing.T) (compare.SweepOptions, []compare.SweepRow) {
	t.Helper()
	o := compare.SweepOptions{Procs: 4, Intervals: 8, Seeds: 2, MTT: trace.Second, Ratios: []float64{1, 5, 20, 50}}
	rows, err := compare.Sweep(o)
	if err != nil {
		t.Fatal(err)
	}
	return o, rows
}

// TestSweepGolden: the sweep's table in every format.
func TestSweepGolden(t *testing.T) {
	o, rows := smallSweep(t)
	for _, f := range CompareFormats {
		var b bytes.Buffer
		if err := Sweep(&b, f, o, rows); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "compare/sweep."+string(f), b.Bytes())
	}
}

// TestCompareTextFits: no line of `ckpt compare`'s text is wider than
// 100 columns — the bundled examples and a generated eight-process trace
// with every protocol (the table splits, repeating the protocol), and
// the sweep's table.
func TestCompareTextFits(t *testing.T) {
	tables := exampleTables(t, compare.Options{Workers: 2})
	cfg := gen.DefaultConfig()
	cfg.Procs, cfg.Events, cfg.Seed = 8, 200, 2
	tr, err := gen.Trace(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr.Name = "traces/generated/eight-processes.jsonl"
	tab, err := compare.Run(tr, compare.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	if err := Compare(&sb, Text, append(tables, tab), Options{}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(sb.String(), "│ hmnr "); n != 2*(len(tables)+1) {
		t.Errorf("%d rows of hmnr, want two per trace (the table split in two)", n)
	}
	o, rows := smallSweep(t)
	if err := Sweep(&sb, Text, o, rows); err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(sb.String(), "\n") {
		if n := utf8.RuneCountInString(line); n > width {
			t.Errorf("line %d is %d wide: %s", i+1, n, line)
		}
	}
}
