package compare

import (
	"github.com/ckpt-dev/ckpt/explore"
	"github.com/ckpt-dev/ckpt/measure"
	"github.com/ckpt-dev/ckpt/trace"
)

// counts reads the figures of a failure-free run: checkpoints by type,
// sends and their piggyback bytes, control messages, blocked time, and
// the useless checkpoints of its checkpoint and communication pattern.
func counts(run *trace.Run) Counts {
	var r Counts
	n := len(run.Processes)
	blockedAt := make([]trace.Time, n)
	for i := range run.Events {
		e := &run.Events[i]
		switch e.Kind {
		case trace.Checkpoint:
			switch e.CkptType {
			case trace.CkptBasic:
				r.Basic++
			case trace.CkptForced:
				r.Forced++
			}
		case trace.Send:
			r.Messages++
			r.PiggybackBytes += run.PB(e).Bytes()
		case trace.ControlSend:
			r.ControlMessages++
		case trace.Block:
			blockedAt[e.P] = e.T
		case trace.Resume:
			r.Blocked += e.T - blockedAt[e.P]
		}
	}
	var err error
	if r.Useless, err = measure.Useless(explore.Pattern(run)); err != nil {
		// A replay's own run is well formed: cannot happen.
		panic("compare: " + err.Error())
	}
	r.quotients()
	return r
}

// quotients sets the figures that divide the counts.
func (r *Counts) quotients() {
	r.ForcedPerBasic = quotient(float64(r.Forced), r.Basic)
	r.PiggybackPerMessage = quotient(float64(r.PiggybackBytes), r.Messages)
}

// quotient returns a/b, or nil when b is 0.
func quotient(a float64, b int) *float64 {
	if b == 0 {
		return nil
	}
	v := a / float64(b)
	return &v
}
