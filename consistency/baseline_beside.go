package consistency

import (
	"github.com/ckpt-dev/ckpt/consistency/baseline"
	"github.com/ckpt-dev/ckpt/consistency/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// baselineRun is the uncoordinated baseline of a report (SPEC §7),
// computed beside the model's last steps: it reads only the source
// trace, so a Stream starts it before Finish, whose work is mostly on one
// core (10^7 events: about a second of both algorithms' reports).
type baselineRun struct {
	done chan struct{}
	b    report.Uncoordinated
	err  error
}

// startBaseline computes src's baseline on a goroutine of its own.
func startBaseline(src *trace.Trace) *baselineRun {
	br := &baselineRun{done: make(chan struct{})}
	go func() {
		defer close(br.done)
		br.b, br.err = baseline.Uncoordinated(src)
	}()
	return br
}

// wait returns the baseline once computed.
func (br *baselineRun) wait() (report.Uncoordinated, error) {
	<-br.done
	return br.b, br.err
}
