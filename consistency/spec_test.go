package consistency

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// TestSpecRuns checks the runs under testdata/spec, each written to pin
// one rule of SPEC §6/§7/§9, against the status of every property (a
// relative "source" in the header is read from that directory).
func TestSpecRuns(t *testing.T) {
	const (
		P = report.Pass
		F = report.Fail
		U = report.Unknown
		N = report.NA
	)
	order := []string{report.OrphanFree, report.NoLostMessages, report.NoDuplicates, report.LogReplayRules,
		report.DominoFree, report.ZCycleFree, report.SnLines, report.MinimalRollback, report.Equivalence}
	for _, tc := range []struct {
		file string
		want []report.Status // in order
		// witness must appear in the first violation of the first
		// failing property, if any.
		witness string
	}{
		// ckpt's own PK run of the classic example: clean.
		{"pk-classic.run.json", []report.Status{P, P, P, P, P, N, N, P, P}, ""},
		// The restart claims m3 was replayed although it was never stable.
		{"pk-restart-too-far.run.json", []report.Status{P, P, P, F, P, N, N, P, F}, "stops at pos 3, the replay rule says 2"},
		// P2's rollback keeps its receipt of the orphan m4: an orphan,
		// and a rollback short of the orphan suffix.
		{"pk-short-rollback.run.json", []report.Status{F, P, P, P, P, N, N, F, F}, "keeps a receipt of orphan m4"},
		// A receipt undone by a restart and never redone, its send live.
		{"pk-lost-after-restart.run.json", []report.Status{P, F, P, P, P, N, N, P, U}, "x is lost"},
		// Foreign algorithm, no copies: what it cannot judge is unknown,
		// the duplicate it can see fails.
		{"foreign-dup.run.json", []report.Status{U, P, F, U, U, U, U, U, U}, "received twice"},
		// A foreign MS run without pos on restarts and rollbacks: the undo
		// shows in the next op numbers, which is no broken continuity;
		// everything that needs pos is unknown, never fail or pass.
		{"ms-no-pos.run.json", []report.Status{U, U, U, U, U, U, U, N, U}, ""},
		// P2 restarts after recording P1's token while down; its logged
		// receipt of b is an orphan of P1's announcement, so replay stops
		// before it (pos 0).
		{"pk-concurrent.run.json", []report.Status{P, P, P, P, P, N, N, P, P}, ""},
		// The same without piggybacks: whether b's entry is an orphan
		// cannot be told, so the restart's pos is unknown, not wrong.
		{"pk-concurrent-no-pb.run.json", []report.Status{P, P, P, U, P, N, N, P, P}, ""},
		// Tokens without bodies: the announcements P2 had recorded are
		// unknown.
		{"pk-concurrent-no-body.run.json", []report.Status{P, P, P, U, U, N, N, P, P}, ""},
		// Without copy numbers: minimal-rollback stays n/a for MS.
		{"ms-no-copy.run.json", []report.Status{U, P, P, U, U, U, U, N, P}, ""},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", "spec", tc.file)
			run, err := trace.ReadRunFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var src *trace.Trace
			if run.Source != "" {
				if src, err = trace.ReadTraceFile(filepath.Join("testdata", "spec", run.Source)); err != nil {
					t.Fatal(err)
				}
			}
			r := Check(run, src)
			want := map[string]report.Status{}
			for i, name := range order {
				want[name] = tc.want[i]
			}
			expect(t, r, want)
			if tc.witness != "" {
				found := false
				for _, p := range r.Properties {
					for _, v := range p.Violations {
						found = found || strings.Contains(v.Message+" "+v.Because, tc.witness)
					}
				}
				if !found {
					t.Errorf("no violation mentions %q:\n%s", tc.witness, dump(r))
				}
			}
		})
	}
}
