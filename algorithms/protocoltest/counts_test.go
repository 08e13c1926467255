package protocoltest

import "github.com/ckpt-dev/ckpt/trace"

// Counts are what the comparisons of checkpointing protocols measure in a
// failure-free run.
type Counts struct {
	Basic, Forced, Skipped int
	// Control is the number of control messages sent.
	Control int
	// Blocked is the time processes spent held, summed over processes:
	// from each `block` to the `resume` that ends it.
	Blocked trace.Time
	// PBBytes is the piggyback size summed over sends
	// (trace.Piggyback.Bytes).
	PBBytes int64
}

// CountsOf counts run's events.
func CountsOf(run *trace.Run) Counts {
	var c Counts
	blocked := make([]trace.Time, len(run.Processes))
	for i := range run.Events {
		e := &run.Events[i]
		switch e.Kind {
		case trace.Checkpoint:
			switch e.CkptType {
			case trace.CkptBasic:
				c.Basic++
			case trace.CkptForced:
				c.Forced++
			}
		case trace.CheckpointSkipped:
			c.Skipped++
		case trace.ControlSend:
			c.Control++
		case trace.Block:
			blocked[e.P] = e.T
		case trace.Resume:
			c.Blocked += e.T - blocked[e.P]
		case trace.Send:
			c.PBBytes += run.PB(e).Bytes()
		}
	}
	return c
}
