package consistency

import (
	"slices"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// Coordinated checkpointing's rounds (docs/protocols.md). Its promise,
// that every round is a consistent global checkpoint, is sn-lines'; these
// are the rules by which a run shows the rounds that promise is judged
// on. The initiator is the process with the most ticks in the trace (the
// first among equals). Its tick starts a round with a basic checkpoint
// when none runs — it is blocked from then until its resume — and is
// skipped as in-round while one does; every other process skips its ticks
// as not-initiator, and takes its round checkpoint, also basic, when the
// request reaches it: so a basic checkpoint is a timer tick of the trace
// unless it answers a request that reached its process at the same
// instant and that no checkpoint has answered yet. A process acknowledges
// a round only after the checkpoint that answers its request: an ack
// without one would leave the round without that process's checkpoint,
// and sn-lines would judge lines the protocol never made. (A red team
// made failing rounds pass by deleting a process's round checkpoint
// while it still acked, by deleting whole rounds and relabelling the
// initiator's ticks as not-initiator or in-round, and by checkpointing a
// non-initiator at its own tick.) Without the source trace the initiator
// is the process that sends requests, judged at the end.

// roundSpec is what the run spec keeps of a coordinated run's rounds:
// the initiator (None: no source trace), and per process the latest
// request it received (None: none yet) and whether a checkpoint answered
// it; whether it sent a request; and, without the initiator, its first
// skip as not-initiator and as in-round (None: none).
type roundSpec struct {
	init             int32
	request          []int32
	answered, starts []bool
	notInit, inRound []int32
}

func newRoundSpec(m *history.Model) *roundSpec {
	np := len(m.Run.Processes)
	none := slices.Repeat([]int32{history.None}, np)
	return &roundSpec{init: initiator(m), request: none, answered: make([]bool, np), starts: make([]bool, np), notInit: slices.Clone(none), inRound: slices.Clone(none)}
}

// initiator is the process with the most ticks in the source trace, the
// first among equals, or None without one.
func initiator(m *history.Model) int32 {
	if m.Src == nil || len(m.Run.Processes) == 0 {
		return history.None
	}
	ticks := make([]int, len(m.Run.Processes))
	for i := range m.Src.Events {
		if e := &m.Src.Events[i]; e.Kind == trace.Checkpoint && int(e.P) < len(ticks) {
			ticks[e.P]++
		}
	}
	return int32(slices.Index(ticks, slices.Max(ticks)))
}

func (r *roundSpec) clone() *roundSpec {
	return &roundSpec{init: r.init, request: slices.Clone(r.request), answered: slices.Clone(r.answered), starts: slices.Clone(r.starts),
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

// ticked judges a basic checkpoint at a timer tick of its process: only
// the initiator's tick starts a round, and not while its round runs.
func (r *roundSpec) ticked(s *runSpec, seq int32, e *trace.RunEvent) {
	switch {
	case r == nil || r.init == history.None:
	case e.P != r.init:
		s.badf(logReplayAt, []int32{seq}, "%s checkpoints at its own tick at seq %d\nonly the initiator, %s (the process with the most ticks in the trace), starts rounds at its ticks; the others skip theirs as not-initiator", s.name(e.P), seq, s.name(r.init))
	case s.blockedBy(e.P) != history.None:
		s.badf(logReplayAt, []int32{seq}, "%s starts a round at seq %d while its round runs (blocked since seq %d)\nthe initiator skips its ticks as in-round until its round commits", s.name(e.P), seq, s.blockedBy(e.P))
	}
}

// skipped judges a skipped tick's reason by role and round, or records
// it for finish without the initiator.
func (r *roundSpec) skipped(s *runSpec, seq int32, e *trace.RunEvent) {
	switch {
	case r == nil || e.Reason != trace.ReasonNotInitiator && e.Reason != trace.ReasonInRound:
	case r.init == history.None:
		at := &r.notInit[e.P]
		if e.Reason == trace.ReasonInRound {
			at = &r.inRound[e.P]
		}
		if *at == history.None {
			*at = seq
		}
	case e.Reason == trace.ReasonNotInitiator && e.P == r.init:
		s.badf(logReplayAt, []int32{seq}, "%s skips its tick at seq %d as not-initiator, but it is the initiator\nthe initiator is the process with the most ticks in the trace; its ticks start rounds, or are skipped as in-round", s.name(e.P), seq)
	case e.Reason == trace.ReasonInRound && (e.P != r.init || s.blockedBy(e.P) == history.None):
		s.badf(logReplayAt, []int32{seq}, "%s skips its tick at seq %d as in-round, but no round of its runs\nonly the initiator, %s, skips a tick as in-round, while its round runs (from its round checkpoint until its resume)", s.name(e.P), seq, s.name(r.init))
	}
}

// finish judges the skips by role without the source trace: the
// initiator is the process that sends requests.
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
