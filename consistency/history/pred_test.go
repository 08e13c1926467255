package history_test

import (
	"slices"
	"testing"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// gappedRun is one process whose ops show as 0, 2, 3, 1, 2: op 1 never
// shows before op 2 (a gap), and the second op 1 undoes ops 1 to 3
// (broken continuity, an implicit undo).
func gappedRun() *trace.Run {
	run := &trace.Run{Name: "gapped", Algorithm: "ms", Processes: []string{"P0"}}
	for i, op := range []int32{0, 2, 3, 1, 2} {
		e := trace.NewRunEvent(trace.Internal, trace.Time(i), 0)
		e.Op = op
		run.Events = append(run.Events, e)
	}
	return run
}

// Pred links an op only to the op numbered just below it, in engine runs
// and across gaps and undos alike: the token hash's chain walk
// (consistency/log_replay_rules_token_hash.go) relies on it and checks
// no op numbers.
func TestPredIsTheOpJustBelow(t *testing.T) {
	runs := engineRuns(t)
	runs["gapped"] = gappedRun()
	for name, run := range runs {
		m := history.Build(run, nil, history.AlgOf(run))
		for s := range run.Events {
			p := m.Pred[s]
			if p == history.None {
				continue
			}
			if got, want := run.Events[p].Op, run.Events[s].Op-1; got != want {
				t.Errorf("%s: seq %d (op %d) links to seq %d, op %d; want op %d", name, s, run.Events[s].Op, p, got, want)
			}
		}
	}
	m := history.Build(gappedRun(), nil, history.MS)
	if want := []int32{history.None, history.None, 1, 0, 3}; !slices.Equal(m.Pred, want) {
		t.Errorf("gapped run: Pred %v, want %v", m.Pred, want)
	}
}
