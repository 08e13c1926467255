package compare

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/explore"
	"github.com/ckpt-dev/ckpt/pipeline"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen/gentest"
)

// TestAgreesWithReport: on random traces, every protocol's row counts
// what the checker's report of the same run counts — basic and forced
// checkpoints, messages, control messages, useless checkpoints and
// piggyback bytes (one definition, trace.Piggyback.Bytes, for every
// algorithm) — and the run of every protocol but uncoordinated
// checkpointing is valid.
func TestAgreesWithReport(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ff, err := explore.Prepare(gentest.Trace().Draw(t, "trace"), trace.Params{}, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range Protocols {
			run, err := replayed(name, ff)
			if err != nil {
				t.Fatal(err)
			}
			row, rep := counts(run), pipeline.Report(run, ff)
			s := rep.Stats
			got := [6]int64{int64(row.Basic), int64(row.Forced), int64(row.Messages), int64(row.ControlMessages), int64(row.Useless), row.PiggybackBytes}
			want := [6]int64{int64(s.Checkpoints.Basic), int64(s.Checkpoints.Forced), int64(s.Messages), int64(s.ControlMessages), int64(s.Checkpoints.Useless), s.PiggybackBytes}
			if got != want {
				t.Fatalf("%s: row (basic, forced, messages, control, useless, piggyback bytes) %v, report %v", name, got, want)
			}
			if name != Uncoordinated && !rep.Valid {
				t.Fatalf("%s: report not valid: %+v", name, rep.Properties)
			}
		}
	})
}
