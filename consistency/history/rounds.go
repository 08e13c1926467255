package history

import "github.com/ckpt-dev/ckpt/trace"

// Coordinated checkpointing places a round's checkpoints by protocol, not
// at timer ticks (docs/protocols.md): the initiator's tick starts a round
// with a basic checkpoint, and every other process takes its round
// checkpoint, also typed basic, when the initiator's request reaches it.
// So in a coordinated run a basic checkpoint is a timer tick of the trace
// unless it answers a round request: one that reached its process at the
// same instant and that no checkpoint has answered yet. A basic
// checkpoint that is neither — forged, or taken twice for one request —
// is no environment event of the trace and breaks the run's form
// (EnvironmentMismatch) like any other.

// roundRequested records a coordinated round's request arriving at its
// process (the seq of its control_recv), to be answered by a checkpoint.
func (b *Builder) roundRequested(seq int32, e *trace.RunEvent) {
	if b.m.Alg != Coordinated || e.Control != trace.ControlRequest {
		return
	}
	w := &b.wf
	if w.request == nil {
		w.request = make([]int32, len(b.procs))
		for p := range w.request {
			w.request[p] = None
		}
	}
	w.request[e.P] = seq
}

// answersRound reports whether the basic checkpoint e answers a round
// request its process received at the same instant, and marks the
// request answered.
func (b *Builder) answersRound(e *trace.RunEvent) bool {
	w := &b.wf
	if w.request == nil {
		return false
	}
	r := w.request[e.P]
	if r == None || b.m.Run.Events[r].T != e.T {
		return false
	}
	w.request[e.P] = None
	return true
}
