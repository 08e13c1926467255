package pk

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// failing returns the properties the independent checker fails on run.
func failing(run *trace.Run, tr *trace.Trace) []string {
	var out []string
	for _, p := range consistency.Check(run, tr).Properties {
		if p.Status == report.Fail {
			msg := p.Name
			if len(p.Violations) > 0 {
				msg += ": " + p.Violations[0].Message
			}
			out = append(out, msg)
		}
	}
	return out
}

// TestCheckerAgrees runs the golden cases and random recoveries through
// the independent consistency checker (SPEC §7), which rebuilds
// everything from the run: PK must pass every property it promises.
func TestCheckerAgrees(t *testing.T) {
	for _, tc := range goldenCases {
		tr, err := tc.trace.Build()
		if err != nil {
			t.Fatal(err)
		}
		tr.Name = tc.name + ".json"
		rep := consistency.Check(replayPK(t, tr), tr)
		for _, p := range rep.Properties {
			want := report.Pass
			if p.Name == report.ZCycleFree || p.Name == report.SnLines || p.Name == report.RDT {
				want = report.NA
			}
			if p.Status != want {
				t.Errorf("%s: %s is %s, want %s: %+v", tc.name, p.Name, p.Status, want, p.Violations)
			}
		}
	}
	n := 100
	if testing.Short() {
		n = 20
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		tr := genTrace(t, randomConfig(seed))
		if f := failing(replayPK(t, tr), tr); len(f) > 0 {
			t.Errorf("seed %d: %s", seed, strings.Join(f, "; "))
		}
	}
}

// TestBundledTraces replays the repository's example traces through PK
// and the checker, as `ckpt verify --algo pk` would.
func TestBundledTraces(t *testing.T) {
	paths, _ := filepath.Glob("../../testdata/traces/*.json*")
	for _, path := range paths {
		tr, err := codec.ReadTraceFile(path)
		if err != nil {
			continue // invalid examples are the validator's business
		}
		run := replayPK(t, tr)
		if f := failing(run, tr); len(f) > 0 {
			t.Errorf("%s: %s", path, strings.Join(f, "; "))
		}
	}
}
