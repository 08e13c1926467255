package cmd

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/render"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// TestStreamAheadSameReports: the checker taking the run on a goroutine
// of its own (streamAhead) reports what it reports taking each event
// between the replay's steps, for every algorithm, on traces with
// failures, ties and (64 processes, one early failure) thousands of PK
// vectors forgotten in batches. Run with -race it also shows that the
// checker reads only what the engine no longer writes.
func TestStreamAheadSameReports(t *testing.T) {
	shapes := []struct {
		procs, events, failures int
		concurrent              bool
	}{
		{6, 20000, 12, true},
		{64, 30000, 1, false},
		{3, 2000, 2, true},   // one hand-over: the finished run
		{16, 20000, 0, true}, // the protocols without recovery
	}
	for k, sh := range shapes {
		c := gen.DefaultConfig()
		c.Procs, c.Events, c.Failures, c.Concurrent, c.Seed = sh.procs, sh.events, sh.failures, sh.concurrent, uint64(k+1)
		tr, err := gen.Trace(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range algoNames(false) {
			for _, variant := range []string{"", "textbook"} {
				if variant != "" && name != "ms" {
					continue
				}
				t.Run(fmt.Sprintf("%dx%d/%s%s", sh.procs, sh.events, name, variant), func(t *testing.T) {
					// Ahead, with the baseline verify shares between the
					// algorithms; between steps, with the stream's own.
					render := func(ahead bool) string {
						var out bytes.Buffer
						var base *consistency.Baseline
						if ahead {
							base = consistency.StartBaseline(tr)
						}
						r := verifyOne(tr, "ahead.json", name, variant, trace.Params{}, base, ahead)
						if err := render.Reports(&out, render.JSON, []report.Report{r}, render.Options{}); err != nil {
							t.Fatal(err)
						}
						return out.String()
					}
					if r := verifyOne(tr, "ahead.json", name, variant, trace.Params{}, nil, true); r.Error != "" {
						if sh.failures == 0 || name == "ms" || name == "pk" {
							t.Fatal(r.Error)
						}
						t.Skip("no recovery:", r.Error)
					}
					if one, ahead := render(false), render(true); one != ahead {
						t.Fatalf("reports differ:\nbetween steps:\n%.2000s\nahead:\n%.2000s", one, ahead)
					}
				})
			}
		}
	}
}
