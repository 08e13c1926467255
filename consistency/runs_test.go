package consistency

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
)

var updateRuns = flag.Bool("update-runs", false, "rewrite testdata/runs from the hand-written runs")

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
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", "runs", name+".json")
			var buf bytes.Buffer
			if err := trace.WriteRun(&buf, run, trace.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			if *updateRuns || updateAll() {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			back, err := trace.ReadRunFile(path)
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

// updateAll reports whether -update (registered by the golden tests) is
// set: it rewrites these files too.
func updateAll() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}
