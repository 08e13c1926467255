package render

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ckpt-dev/ckpt/explore"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// TestTextFits: no line of the text rendering is wider than 100 columns,
// on the golden exploreCases and on a generated trace of six processes with
// two failures (long schedules in "first reached by", witnesses of the
// textbook variant): wide cells wrap, the witness column moves under
// the verdict table.
func TestExploreTextFits(t *testing.T) {
	rs := exploreResults(t)
	cfg := gen.DefaultConfig()
	cfg.Procs, cfg.Events, cfg.Failures, cfg.Seed = 6, 60, 2, 3
	tr, err := gen.Trace(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr.Name = "traces/generated/ci-run-1234.jsonl"
	r, err := explore.Run(context.Background(), tr, explore.Options{Failures: 2, Budget: 30, Seed: 1, Variant: "textbook", Algorithms: []string{"ms"}})
	if err != nil {
		t.Fatal(err)
	}
	rs["generated"] = r
	wrapped := false
	for name, r := range rs {
		var sb strings.Builder
		if err := Explore(&sb, Text, r, Options{Color: name == "generated"}); err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(sb.String(), "\n") {
			if n := utf8.RuneCountInString(stripANSI(line)); n > width {
				t.Errorf("%s: line %d is %d wide: %s", name, i+1, n, line)
			}
		}
		wrapped = wrapped || strings.Contains(sb.String(), "│           │                                │       │")
	}
	if !wrapped {
		t.Error("no cell wrapped: the test does not exercise wrapping")
	}
}

// stripANSI drops colour sequences, which take no columns.
func stripANSI(s string) string {
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			return s
		}
		j := strings.IndexByte(s[i:], 'm')
		if j < 0 {
			return s
		}
		s = s[:i] + s[i+j+1:]
	}
}
