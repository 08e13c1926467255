package pipeline

import (
	"strings"
	"testing"

	"github.com/goccy/go-json"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// TestVerifyParallelSameReports verifies traces with their algorithms
// in parallel (two cores, memory to spare) and one after the other: the
// reports must be the same bytes, in the same order. Run with -race it
// also shows that the two replays and checks share the trace read-only.
func TestVerifyParallelSameReports(t *testing.T) {
	for _, events := range []int{200, 1 << 14} {
		c := gen.DefaultConfig()
		c.Procs, c.Events, c.Failures, c.Concurrent, c.Seed = 6, events, 8, true, 3
		tr, err := gen.Trace(c)
		if err != nil {
			t.Fatal(err)
		}
		p := &Pipeline{Mem: &Cap{Bytes: 1 << 40}}
		renderJSON := func(cores int) string {
			var reports []report.Report
			for _, o := range p.Verify(tr, "par.json", Options{Algorithms: []string{"ms", "pk"}, Variant: "textbook", Cores: cores}) {
				reports = append(reports, o.Report)
			}
			out, err := json.MarshalIndent(reports, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			return string(out)
		}
		par, seq := renderJSON(2), renderJSON(1)
		if par != seq {
			t.Fatalf("%d events: parallel and sequential verify differ:\nparallel:\n%.2000s\nsequential:\n%.2000s", events, par, seq)
		}
		if !strings.Contains(par, `"algorithm": "ms-textbook"`) || !strings.Contains(par, `"algorithm": "pk"`) {
			t.Fatalf("want an ms-textbook and a pk report:\n%.1000s", par)
		}
	}
}
