package protocoltest

import "github.com/ckpt-dev/ckpt/trace"

// Counts are what the comparisons of checkpointing protocols measure in a
// failure-free run.
type Counts struct {
	Basic, Forced, Skipped int
	// Control is the number of control messages sent.
	Control int
	// Blocked is the time processes spent held, summed over processes:
	// from the checkpoint a hold starts with to the `resume` that ends it
	// (the run records no event for the start of a process hold).
	Blocked trace.Time
	// PBBytes is the piggyback size summed over sends, counted as the
	// checker counts it: 4 bytes a number, 8 an F or VT entry.
	PBBytes int64
}

// CountsOf counts run's events.
func CountsOf(run *trace.Run) Counts {
	var c Counts
	lastCkpt := make([]trace.Time, len(run.Processes))
	for i := range run.Events {
		e := &run.Events[i]
		switch e.Kind {
		case trace.Checkpoint:
			lastCkpt[e.P] = e.T
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
		case trace.Resume:
			c.Blocked += e.T - lastCkpt[e.P]
		case trace.Send:
			c.PBBytes += pbBytes(run.PB(e))
		}
	}
	return c
}

func pbBytes(pb *trace.Piggyback) int64 {
	if pb == nil {
		return 0
	}
	var n int64
	for _, v := range []int32{pb.Sn, pb.Inc, pb.RecLine} {
		if v != trace.None {
			n += 4
		}
	}
	return n + 8*int64(len(pb.F)+len(pb.VT))
}
