package record

import (
	"errors"
	"fmt"
	"slices"

	"github.com/ckpt-dev/ckpt/trace"
)

// Derive returns the execution trace a run of a running system was an
// execution of: each process's program — op k is the operation its first
// execution of op k performed, at that time — plus the environment the
// run met: its timer ticks (basic checkpoints, skipped ticks, and the
// Checkpoint ticks of a recording of a trace only) and
// failures, at their times, each failure down until its restart. A
// running system has no trace of its own to replay; this is the one the
// checker needs to judge equivalence (SPEC §7), and `ckpt verify` can
// replay it (with the simulator's delays, not the system's).
//
// First executions are in the run's order, so every receive comes after
// the send it received, and the trace is valid whenever the run's
// executions agree on their ops; where they do not, the checker says so
// (equivalence) and Derive keeps the first. A trace.InputError it
// returns names the run's event (Event: its index in run.Events).
func Derive(run *trace.Run) (*trace.Trace, error) {
	var from []int // from[i]: the run event trace event i comes from
	tr := &trace.Trace{Processes: run.Processes, Msgs: slices.Clone(run.Msgs)}
	seen := make([]int32, len(run.Processes))            // ops seen so far, per process
	down := slices.Repeat([]int{-1}, len(run.Processes)) // index in tr.Events of p's pending fail, or -1
	for i := range run.Events {
		e := &run.Events[i]
		n := len(tr.Events)
		switch {
		case e.Kind.IsOp() && !e.Resend:
			if e.Op != seen[e.P] {
				continue // a re-execution, or an op number out of line
			}
			seen[e.P]++
			add(tr, run, e, e.Kind)
		case e.Kind == trace.Checkpoint && (e.CkptType == trace.CkptBasic || e.CkptType == trace.CkptNone), e.Kind == trace.CheckpointSkipped:
			add(tr, run, e, trace.Checkpoint)
		case e.Kind == trace.Fail:
			down[e.P] = len(tr.Events)
			add(tr, run, e, trace.Fail)
		case e.Kind == trace.Restart && down[e.P] >= 0:
			f := &tr.Events[down[e.P]]
			f.Down, down[e.P] = max(e.T-f.T, 1), -1
		}
		if len(tr.Events) > n {
			from = append(from, i)
		}
	}
	err := trace.Validate(tr)
	if ie := (*trace.InputError)(nil); errors.As(err, &ie) && ie.Event >= 0 && ie.Event < len(from) {
		ie.Event = from[ie.Event]
	}
	if err != nil {
		return nil, fmt.Errorf("the run's first executions are no valid trace: %w", err)
	}
	return tr, nil
}

func add(tr *trace.Trace, run *trace.Run, e *trace.RunEvent, kind trace.Kind) {
	ev := trace.Event{T: e.T, Kind: kind, P: e.P, To: trace.None, Msg: trace.None}
	if kind == trace.Send || kind == trace.Recv {
		ev.Msg = e.Msg
	}
	if kind == trace.Send {
		ev.To = e.Peer
	}
	ev.Label = tr.AddLabel(run.Label(e))
	tr.Events = append(tr.Events, ev)
}
