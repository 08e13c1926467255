package consistency

import (
	"path/filepath"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/internal/golden"
	"github.com/ckpt-dev/ckpt/trace"
)

// The hand-written runs are also kept as files under testdata/runs, so
// `ckpt check` can be tested end to end on them; this test keeps the
// files in sync with the Go code that builds them, and checks that each
// still reads back to a run with the same verdicts.
func TestRunFiles(t *testing.T) {
	for name, run := range map[string]*trace.Run{
		"ms-clean":         msFailureRun(msOpts{}),
		"ms-orphan":        msFailureRun(msOpts{noRollback: true}),
		"ms-lost":          msFailureRun(msOpts{discardResent: true}),
		"ms-domino":        msFailureRun(msOpts{rollbackInit: true}),
		"pk-clean":         pkRun(pkOpts{}),
		"pk-over-rollback": pkRun(pkOpts{overRollback: true}),
	} {
		// Their times are written by hand, not a replay's: the files say
		// so, as a run of ckpt's algorithms without the replay's delays
		// must (trace.Run.MissingOption).
		run.Options.Timing = trace.TimingRecorded
		t.Run(name, func(t *testing.T) {
			golden.Check(t, filepath.Join("runs", name+".json"), encodeRun(t, run))
			path := filepath.Join("testdata", "runs", name+".json")
			back, err := tracetest.ReadRunFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want, got := Check(run, nil), Check(back, nil)
			wv, gv := verdicts(want), verdicts(got)
			for p, st := range wv {
				if gv[p] != st {
					t.Errorf("%s: %s is %s from the file, %s in memory", path, p, gv[p], st)
				}
			}
		})
	}
}
