package consistency

import (
	"reflect"
	"testing"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// TestCheckAndJudgeAgreeOnForgedRuns: Check (a Stream, what ckpt check
// runs) and Judge of a finished model run the same pkClocks.step, but the
// stream reads a receipt's copy as the run has sent it so far and the
// finished model as the whole run sends it (Copies.Send is the latest
// send of a copy number). On a forged run where the two differ they
// report log-replay-rules differently: other witnesses, or (the second
// case) unknown from Check where Judge fails. Before the change Check
// was Judge(history.Build(...)), so ckpt check's report changed too.
func TestCheckAndJudgeAgreeOnForgedRuns(t *testing.T) {
	cases := []struct {
		name string
		run  func() *trace.Run
	}{
		{"receive before its send", func() *trace.Run {
			b := newRun("pk", "P0", "P1")
			b.recv("P1", "P0", "m", 0, 1, trace.ViaNet)
			b.send("P0", "P1", "m", 0, 1, pkPB([2]int32{0, 1}, [2]int32{0, 0}))
			b.send("P1", "P0", "n", 1, 1, pkPB([2]int32{0, 1}, [2]int32{0, 2}))
			b.recv("P0", "P1", "n", 1, 1, trace.ViaNet)
			b.done("P0", "P1")
			return b.run
		}},
		{"copy sent again, without a vector, after its receipt", func() *trace.Run {
			b := newRun("pk", "P0", "P1")
			b.send("P0", "P1", "m", 0, 1, pkPB([2]int32{0, 1}, [2]int32{0, 0}))
			b.recv("P1", "P0", "m", 0, 1, trace.ViaNet)
			b.add(trace.Send, "P0", func(e *trace.RunEvent) { e.Peer, e.Msg, e.Op, e.Copy = b.p("P1"), b.m("m"), 1, 1 })
			b.send("P1", "P0", "n", 1, 1, pkPB([2]int32{0, 1}, [2]int32{0, 2}))
			b.recv("P0", "P1", "n", 2, 1, trace.ViaNet)
			b.done("P0", "P1")
			b.add(trace.Unconsumed, "P1", func(e *trace.RunEvent) { e.Msg, e.Copy = b.m("m"), 1 })
			return b.run
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run := c.run()
			streamed := Check(run, nil)
			finished := Judge(history.Build(run, nil, history.AlgOf(run)))
			if !reflect.DeepEqual(streamed, finished) {
				t.Errorf("Check (streamed):\n%s\nJudge of the finished model:\n%s", dump(streamed), dump(finished))
			}
		})
	}
}
