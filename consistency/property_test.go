package consistency_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen/gentest"
)

// No false positives on the real algorithms: every random trace, with
// failures (concurrent ones included), replays through the default MS
// and PK into a run the checker finds valid. rapid shrinks a failure to
// a minimal trace.
func TestRandomTracesVerifyClean(t *testing.T) {
	for _, name := range algorithms.Names {
		t.Run(name, func(t *testing.T) {
			if _, err := algorithms.New(name, "", &trace.Trace{Processes: []string{"P0"}}); err != nil {
				t.Skipf("%s unavailable: %v", name, err)
			}
			rapid.Check(t, func(t *rapid.T) {
				tr := gentest.Trace().Draw(t, "trace")
				run := replayed(t, name, tr)
				r := consistency.Check(run, tr)
				if !r.Valid {
					t.Fatalf("%s run judged invalid:\n%s", name, dumpReport(r))
				}
			})
		})
	}
}
