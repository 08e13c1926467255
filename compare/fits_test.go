package compare

import (
	"strings"
	"testing"
	"unicode/utf8"

	texttable "github.com/ckpt-dev/ckpt/report/table"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// TestTextFits: no line of `ckpt compare`'s text is wider than 100
// columns — the bundled examples and a generated eight-process trace
// with every protocol (the table splits, repeating the protocol), and
// the sweep's table.
func TestTextFits(t *testing.T) {
	tables := exampleTables(t, Options{Workers: 2})
	cfg := gen.DefaultConfig()
	cfg.Procs, cfg.Events, cfg.Seed = 8, 200, 2
	tr, err := gen.Trace(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr.Name = "traces/generated/eight-processes.jsonl"
	tab, err := Run(tr, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	if err := Render(&sb, Text, append(tables, tab)); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(sb.String(), "│ hmnr "); n != 2*(len(tables)+1) {
		t.Errorf("%d rows of hmnr, want two per trace (the table split in two)", n)
	}
	o := smallSweep()
	if err := RenderSweep(&sb, Text, o, runSweep(t, o)); err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(sb.String(), "\n") {
		if n := utf8.RuneCountInString(line); n > texttable.Width {
			t.Errorf("line %d is %d wide: %s", i+1, n, line)
		}
	}
}
