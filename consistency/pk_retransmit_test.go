package consistency

import (
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// replayedSend: P0 logs its receipt of m1 at a flush, sends m2 and
// fails; its restart replays the receipt from the log and re-executes
// the send, which it transmits again (SPEC §5).
func replayedSend(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1", "P2").
		Send(1, "P1", "P0", "m1").Recv(1.1, "P0", "m1").Flush(1.2, "P0").
		Send(1.3, "P0", "P2", "m2").Fail(1.8, "P0").Recv(2, "P2", "m2").Internal(6, "P2"))
}

// TestPKRetransmits: a restart transmits every send its replay
// re-executes (pkRetransmits), found by the second review round.
func TestPKRetransmits(t *testing.T) {
	withoutResend := func(t *testing.T) *trace.Run {
		run := replayOf(t, "pk", replayedSend(t))
		var drop []int32
		msg, cp := int32(trace.None), int32(trace.None)
		for i := range run.Events {
			e := &run.Events[i]
			switch {
			case e.Kind == trace.Send && e.Resend && msg == trace.None:
				msg, cp = e.Msg, e.Copy
				drop = append(drop, int32(i))
			case e.Kind == trace.Unconsumed && e.Msg == msg && e.Copy == cp:
				drop = append(drop, int32(i)) // the copy the resend left
			}
		}
		if len(drop) == 0 {
			t.Fatal("the restart resends nothing")
		}
		return removeAt(run, drop)
	}
	checkRuleCases(t, []ruleCase{
		{name: "replayed", run: replayed("pk", replayedSend), src: replayedSend, prop: report.LogReplayRules, status: report.Pass},
		{name: "resend-left-out", run: withoutResend, src: replayedSend, prop: report.LogReplayRules, status: report.Fail,
			witness: "P0's restart at seq 6 does not transmit its send op 1 (m2) again"},
	})
}
