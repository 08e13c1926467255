package cmd

import (
	"bytes"
	"testing"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// TestVerifyParallelSameReports verifies a trace with its algorithms in
// parallel (spare cores, memory to spare) and one after the other: the
// reports must be the same bytes, in the same order. Run with -race it
// also shows that the two replays and checks share the trace read-only.
func TestVerifyParallelSameReports(t *testing.T) {
	for _, events := range []int{1 << 14, 1 << 17} {
		c := gen.DefaultConfig()
		c.Procs, c.Events, c.Failures, c.Concurrent, c.Seed = 6, events, 8, true, 3
		tr, err := gen.Trace(c)
		if err != nil {
			t.Fatal(err)
		}
		if len(tr.Events) < events {
			t.Fatalf("trace has %d events, want at least %d", len(tr.Events), events)
		}
		f := &reportFlags{Algo: "both", Format: "json", Variant: "textbook"}
		ios := &IO{mem: &memCap{bytes: 1 << 40}}
		if !ios.fitsParallel(lazySizes(tr), f.algorithms()) {
			t.Fatal("the trace does not fit the parallel budget")
		}
		render := func(spare bool) string {
			var out bytes.Buffer
			reports := verifyTrace(ios, tr, "par.json", f, trace.Params{}, spare)
			if err := report.Render(&out, report.JSON, reports, report.Options{}); err != nil {
				t.Fatal(err)
			}
			return out.String()
		}
		par, seq := render(true), render(false)
		if par != seq {
			t.Fatalf("%d events: parallel and sequential verify differ:\nparallel:\n%.2000s\nsequential:\n%.2000s", events, par, seq)
		}
		if !bytes.Contains([]byte(par), []byte(`"algorithm": "ms-textbook"`)) || !bytes.Contains([]byte(par), []byte(`"algorithm": "pk"`)) {
			t.Fatalf("want an ms-textbook and a pk report:\n%.1000s", par)
		}
	}
}
