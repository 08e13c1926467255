package consistency

import (
	"slices"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// Coordinated checkpointing's rounds (docs/protocols.md). Its promise,
// that every round is a consistent global checkpoint, is sn-lines'; these
// are the rules by which a run shows the rounds that promise is judged
// on. The initiator's tick starts a round with a basic checkpoint, and
// every other process takes its round checkpoint, also basic, when the
// request reaches it: so a basic checkpoint is a timer tick of the trace
// unless it answers a request that reached its process at the same
// instant and that no checkpoint has answered yet. A process acknowledges
// a round only after the checkpoint that answers its request: an ack
// without one would leave the round without that process's checkpoint,
// and sn-lines would judge lines the protocol never made (redteam7). Only
// the initiator, the process that sends requests, skips a tick as
// in-round, and only the others as not-initiator.

// roundSpec is what the run spec keeps of a coordinated run's rounds,
// per process: the latest request it received (None: none yet) and
// whether a checkpoint answered it; whether it sent a request; and its
// first skip as not-initiator and as in-round (None: none).
type roundSpec struct {
	request          []int32
	answered, starts []bool
	notInit, inRound []int32
}

func newRoundSpec(np int) *roundSpec {
	none := slices.Repeat([]int32{history.None}, np)
	return &roundSpec{request: none, answered: make([]bool, np), starts: make([]bool, np), notInit: slices.Clone(none), inRound: slices.Clone(none)}
}

func (r *roundSpec) clone() *roundSpec {
	return &roundSpec{request: slices.Clone(r.request), answered: slices.Clone(r.answered), starts: slices.Clone(r.starts),
		notInit: slices.Clone(r.notInit), inRound: slices.Clone(r.inRound)}
}

// requested records a round's request arriving.
func (r *roundSpec) requested(seq int32, e *trace.RunEvent) {
	if r != nil && e.Control == trace.ControlRequest {
		r.request[e.P], r.answered[e.P] = seq, false
	}
}

// answers reports whether the basic checkpoint e answers a round request
// its process received at the same instant, and marks it answered.
func (r *roundSpec) answers(m *history.Model, e *trace.RunEvent) bool {
	if r == nil || r.request[e.P] == history.None || r.answered[e.P] || m.Event(r.request[e.P]).T != e.T {
		return false
	}
	r.answered[e.P] = true
	return true
}

// sent judges a control message's send: an ack answers, with its round,
// the request its process's latest round checkpoint answered.
func (r *roundSpec) sent(s *runSpec, seq int32, e *trace.RunEvent) {
	switch {
	case r == nil:
	case e.Control == trace.ControlRequest:
		r.starts[e.P] = true
	case e.Control == trace.ControlAck:
		req := r.request[e.P]
		if req != history.None && r.answered[e.P] && sameRound(s.m.Run, s.m.Event(req), e) {
			return
		}
		s.badf(logReplayAt, []int32{seq}, "%s acknowledges a round at seq %d without a checkpoint that answers its request\na process takes the round's checkpoint when the round's request reaches it, then acknowledges that round: an ack without it leaves the round without %[1]s's checkpoint", s.name(e.P), seq)
	}
}

// sameRound reports whether control messages a and b name one round,
// or lack the bodies that would say (the round is not judged then).
func sameRound(run *trace.Run, a, b *trace.RunEvent) bool {
	x, y := run.Body(a), run.Body(b)
	return x == nil || y == nil || x.Count == y.Count && x.Origin == y.Origin
}

// skipped records a skipped tick's reason, for the roles (finish).
func (r *roundSpec) skipped(seq int32, e *trace.RunEvent) {
	switch {
	case r == nil:
	case e.Reason == trace.ReasonNotInitiator && r.notInit[e.P] == history.None:
		r.notInit[e.P] = seq
	case e.Reason == trace.ReasonInRound && r.inRound[e.P] == history.None:
		r.inRound[e.P] = seq
	}
}

// finish judges the skips by role: the initiator sends requests.
func (r *roundSpec) finish(s *runSpec) {
	for p := range r.starts {
		if x := r.notInit[p]; r.starts[p] && x != history.None {
			s.badf(logReplayAt, []int32{x}, "%s skips its tick at seq %d as not-initiator, yet it sends round requests\nonly the initiator sends requests, and only the other processes skip their ticks as not-initiator", s.name(int32(p)), x)
		}
		if x := r.inRound[p]; !r.starts[p] && x != history.None {
			s.badf(logReplayAt, []int32{x}, "%s skips its tick at seq %d as in-round, yet it sends no round request\nonly the initiator, which sends the requests, skips a tick because its round is running", s.name(int32(p)), x)
		}
	}
}
