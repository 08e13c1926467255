package consistency

import (
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/trace"
)

// TestRareBranchesFail: two rules' branches no other case reaches, each
// where its property fails: an MS process that rolls back for a failure
// though it holds no checkpoint numbered ≥ r (domino-free's bound), and
// a run whose source trace has other processes (equivalence).
func TestRareBranchesFail(t *testing.T) {
	other, err := tracetest.NewBuilder("P0", "P1", "P2").Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		run      *trace.Run
		src      *trace.Trace
		property string
		want     string
	}{
		{"no checkpoint numbered ≥ r", msFailureRun(msOpts{lowSn: true}), nil, "domino-free", "holds no checkpoint numbered ≥ 1"},
		{"other processes", msFailureRun(msOpts{}), other, "equivalence", "the run and its source trace have different processes"},
	} {
		r := Check(tc.run, tc.src)
		found := false
		for _, p := range r.Properties {
			for _, v := range p.Violations {
				found = found || (p.Name == tc.property && strings.Contains(v.Message, tc.want))
			}
		}
		if !found {
			t.Errorf("%s: want %s to fail with %q:\n%s", tc.name, tc.property, tc.want, dump(r))
		}
	}
}
