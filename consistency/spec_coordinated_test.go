package consistency

import (
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// TestRoundRolesWithoutSource: without the source trace the initiator
// is the process that sends requests, judged at the end: a skip as
// in-round by another process, or as not-initiator by it, fails
// log-replay-rules. (With the source, the forged cases of
// forgedcases_test.go judge the roles from the trace's ticks.)
func TestRoundRolesWithoutSource(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		seq        int32 // an event of the coordinated replay of failure-free.json
		edit       func(e *trace.RunEvent)
	}{
		{"in-round by another", "P1 skips its tick at seq 6 as in-round, yet it sends no round request", 6,
			func(e *trace.RunEvent) { e.Reason = trace.ReasonInRound }},
		{"not-initiator by the initiator", "P0 skips its tick at seq 2 as not-initiator, yet it sends round requests", 2,
			func(e *trace.RunEvent) {
				e.Kind, e.CkptType, e.Ckpt, e.Pos, e.Reason = trace.CheckpointSkipped, trace.CkptNone, trace.None, trace.None, trace.ReasonNotInitiator
			}},
	} {
		run := replayOf(t, "coordinated", bundled("failure-free")(t))
		if r := Check(run, nil); report.Judge(&r, false) == report.VerdictInvalid {
			t.Fatalf("%s: the unedited run is invalid", tc.name)
		}
		tc.edit(&run.Events[tc.seq])
		r := Check(run, nil)
		found := false
		for _, p := range r.Properties {
			for _, v := range p.Violations {
				found = found || p.Name == report.LogReplayRules && strings.Contains(v.Message, tc.want)
			}
		}
		if !found {
			t.Errorf("%s: no log-replay-rules violation says %q", tc.name, tc.want)
		}
	}
}
