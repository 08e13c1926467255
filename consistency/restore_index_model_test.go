package consistency

import (
	"testing"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// TestModelInc: the incarnations (Model.Inc) the rules read from the
// model are what they used to count for themselves in one sweep over the
// run: restarts so far. PK runs of the bundled traces.
func TestModelInc(t *testing.T) {
	for _, name := range []string{"orphan", "domino", "forced", "textbook-orphan"} {
		run := replayOf(t, "pk", bundled(name)(t))
		m := history.Build(run, nil, history.PK)
		inc := make([]int32, len(m.Procs))
		restarts := 0
		for i := range run.Events {
			e, seq := &run.Events[i], int32(i)
			if e.P < 0 || int(e.P) >= len(inc) {
				continue
			}
			if got := m.Inc(e.P, seq); got != inc[e.P] {
				t.Errorf("%s: seq %d: Inc = %d, want %d", name, seq, got, inc[e.P])
			}
			if e.Kind == trace.Restart {
				inc[e.P]++
				restarts++
			}
		}
		if restarts == 0 {
			t.Errorf("%s: no restart to count", name)
		}
	}
	if got := (&history.Model{Procs: make([]history.Proc, 1)}).Inc(1, 0); got != history.None {
		t.Errorf("Inc of a process the header does not name = %d, want None", got)
	}
}
