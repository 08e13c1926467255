package consistency

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"
	"github.com/ckpt-dev/ckpt/trace/tracetest"

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
		want []report.Status // in order; nil: the file is malformed
		// witness must appear in a violation, if any; for a malformed
		// file, in the error reading it.
		witness string
	}{
		// ckpt's own PK run of the classic example: clean.
		{"pk-classic.run.json", []report.Status{P, P, P, P, P, N, N, P, P}, ""},
		// The restart claims m3 was replayed although it was never stable.
		{"pk-restart-too-far.run.json", []report.Status{P, P, P, F, P, N, N, P, F}, "stops at pos 3, the replay rule says 2"},
		// P2's rollback keeps its receipt of the orphan m4: an orphan,
		// and a rollback short of the orphan suffix.
		{"pk-short-rollback.run.json", []report.Status{F, P, P, P, P, N, N, F, F}, "keeps a receipt of orphan m4"},
		// A receipt undone by a restart and never redone, its send live:
		// A forwarded B's token without resending x, which it lacks.
		{"pk-lost-after-restart.run.json", []report.Status{P, F, P, F, P, N, N, P, U}, "x is lost"},
		// Foreign algorithm, no copies: what it cannot judge is unknown,
		// the duplicate it can see fails.
		{"foreign-dup.run.json", []report.Status{U, P, F, U, U, U, U, U, U}, "received twice"},
		// An MS run without pos on restarts and rollbacks, or without
		// copies, piggybacks, token bodies: malformed, since ckpt's
		// algorithms always write them (trace.Run.MissingField; in memory
		// such runs are unknown, never pass: unknown_test.go).
		{"ms-no-pos.run.json", nil, `event 1: checkpoint event lacks "pos", which ms always writes`},
		// P2 restarts after recording P1's token while down; its logged
		// receipt of b is an orphan of P1's announcement, so replay stops
		// before it (pos 0).
		{"pk-concurrent.run.json", []report.Status{P, P, P, P, P, N, N, P, P}, ""},
		{"pk-concurrent-no-pb.run.json", nil, `event 0: send event lacks "pb", which pk always writes`},
		{"pk-concurrent-no-body.run.json", nil, `event 13: control_recv event lacks "body", which pk always writes`},
		{"ms-no-copy.run.json", nil, `event 0: send event lacks "copy", which ms always writes`},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", "spec", tc.file)
			run, err := tracetest.ReadRunFile(path)
			switch {
			case tc.want == nil && (err == nil || !strings.Contains(err.Error(), tc.witness)):
				t.Fatalf("reading it gives %v, want an error: %s", err, tc.witness)
			case tc.want == nil:
				return
			case err != nil:
				t.Fatal(err)
			}
			var src *trace.Trace
			if run.Source != "" {
				if src, err = codec.ReadTraceFile(filepath.Join("testdata", "spec", run.Source)); err != nil {
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
