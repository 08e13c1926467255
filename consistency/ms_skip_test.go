package consistency

import (
	"testing"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// TestMSSkipRecord: what an MS skip records, its tick's number and the
// process's sn, is rebuilt and compared (msSkipRecord). Found by a
// field-by-field forgery sweep on 2026-12-04: either off by one passed.
// The domino trace's MS run skips P1's tick 1 at seq 6 (sn 1, next 1).
func TestMSSkipRecord(t *testing.T) {
	skip := func(edit func(e *trace.RunEvent)) func(*testing.T) *trace.Run {
		return func(t *testing.T) *trace.Run {
			return forge(t, replayOf(t, "ms", bundled("domino")(t)), 6, trace.CheckpointSkipped, edit)
		}
	}
	lrr := report.LogReplayRules
	checkRuleCases(t, []ruleCase{
		{name: "replayed", run: skip(func(*trace.RunEvent) {}), src: bundled("domino"), prop: lrr, status: pass},
		{name: "fields-left-out", run: skip(func(e *trace.RunEvent) { e.Next, e.Sn = trace.None, trace.None }), src: bundled("domino"), prop: lrr, status: pass},
		{name: "next-off", run: skip(func(e *trace.RunEvent) { e.Next++ }), src: bundled("domino"), prop: lrr, status: fail,
			witness: "next 1 and sn 1, but the skip at seq 6 records next 2 and sn 1"},
		{name: "sn-off", run: skip(func(e *trace.RunEvent) { e.Sn-- }), src: bundled("domino"), prop: lrr, status: fail,
			witness: "next 1 and sn 1, but the skip at seq 6 records next 1 and sn 0"},
	})
}
