// Package failfree is what the checkpoint-placement protocols without a
// recovery procedure (bcs, fdas, hmnr, coordinated) share: they place
// checkpoints in failure-free executions, which is what the classic
// comparisons of such protocols measure, and refuse a trace with a
// failure instead of replaying it wrongly. How far a failure would roll
// them back is an analysis of their failure-free checkpoints (the maximum
// consistent recovery line), not a replay: docs/protocols.md.
package failfree

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/trace"
)

// Check returns an input error naming the first `fail` event of tr, or
// nil if it has none. algo names the protocol in the message.
func Check(tr *trace.Trace, algo string) error {
	for i := range tr.Events {
		if tr.Events[i].Kind == trace.Fail {
			return &trace.InputError{File: tr.Name, Event: i, Doc: "trace",
				Msg: fmt.Sprintf("fail: %s places checkpoints in failure-free executions only and has no recovery (replay failures with ms or pk)", algo)}
		}
	}
	return nil
}
