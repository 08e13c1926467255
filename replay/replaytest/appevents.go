package replaytest

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/trace"
)

// AppEvents returns, per process, the trace's app events (ops) as
// (t, kind, msg) triples, and the run's, for the failure-free identity.
func AppEvents(tr *trace.Trace, r *trace.Run) (want, got [][]string) {
	n := len(tr.Processes)
	want, got = make([][]string, n), make([][]string, n)
	for i := range tr.Events {
		e := &tr.Events[i]
		if e.Kind.IsOp() {
			want[e.P] = append(want[e.P], fmt.Sprintf("%s %s %d", e.T, e.Kind, e.Msg))
		}
	}
	for i := range r.Events {
		e := &r.Events[i]
		if e.Kind.IsOp() {
			got[e.P] = append(got[e.P], fmt.Sprintf("%s %s %d", e.T, e.Kind, e.Msg))
		}
	}
	return want, got
}
