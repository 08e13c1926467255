package protocoltest

import (
	"fmt"
	"slices"

	"github.com/ckpt-dev/ckpt/trace"
)

// Sim is a brute-force model of a failure-free execution of a trace
// under a checkpoint-placement protocol, for reference implementations
// written from a protocol's meaning rather than from its variables. It
// keeps the trace's ops and the checkpoints the reference decides as
// events, in file order (the order in which a failure-free replay
// executes them, SPEC §3), each with the set of events that happened
// before it as a bit set: quadratic, for small traces only.
type Sim struct {
	Events []Event
	// Ckpts[p] and Types[p] list the positions and types of p's
	// checkpoints after the initial one, as Pattern does.
	Ckpts  [][]int32
	Types  [][]trace.CkptType
	past   [][]uint64
	last   []int32 // per process: its latest event, or None
	sendEv []int32 // per message: the event of its send
	iv     []int32 // per process: its current interval
	ops    []int32 // per process: ops executed
}

// Event is one op or checkpoint of the model.
type Event struct {
	P    int32
	Kind trace.Kind // Send, Recv, Internal or Checkpoint
	Msg  int32      // Send, Recv
	To   int32      // Send
	// Interval is the interval of an op, or the one a checkpoint opens.
	Interval int32
	Type     trace.CkptType
	// Stamp is the protocol's clock right after the event (Rules.Stamp).
	Stamp int32
}

// Rules is a protocol's reference implementation over the model.
type Rules interface {
	// Forced reports whether p takes a forced checkpoint before it
	// receives the message whose send is event send.
	Forced(s *Sim, p, send int32) bool
	// Stamp returns the clock of the event of p about to be added, of
	// the given kind and type; send is the send event a receipt or a
	// forced checkpoint answers, else None.
	Stamp(s *Sim, p int32, kind trace.Kind, typ trace.CkptType, send int32) int32
}

// Simulate runs tr, which must be failure-free, under r.
func Simulate(tr *trace.Trace, r Rules) (*Sim, error) {
	n := len(tr.Processes)
	s := &Sim{Ckpts: make([][]int32, n), Types: make([][]trace.CkptType, n),
		last: make([]int32, n), sendEv: make([]int32, len(tr.Msgs)), iv: make([]int32, n), ops: make([]int32, n)}
	for p := range s.last {
		s.last[p] = trace.None
	}
	for i := range tr.Events {
		e := &tr.Events[i]
		p := e.P
		switch e.Kind {
		case trace.Fail:
			return nil, fmt.Errorf("event %d: the model is failure-free", i)
		case trace.Checkpoint:
			s.checkpoint(r, p, trace.CkptBasic, trace.None)
		case trace.Send, trace.Internal:
			s.add(r, Event{P: p, Kind: e.Kind, Msg: e.Msg, To: e.To, Interval: s.iv[p]}, trace.None)
		case trace.Recv:
			send := s.sendEv[e.Msg]
			if r.Forced(s, p, send) {
				s.checkpoint(r, p, trace.CkptForced, send)
			}
			s.add(r, Event{P: p, Kind: trace.Recv, Msg: e.Msg, Interval: s.iv[p]}, send)
		}
	}
	return s, nil
}

func (s *Sim) checkpoint(r Rules, p int32, typ trace.CkptType, send int32) {
	s.iv[p]++
	s.Ckpts[p] = append(s.Ckpts[p], s.ops[p])
	s.Types[p] = append(s.Types[p], typ)
	s.add(r, Event{P: p, Kind: trace.Checkpoint, Interval: s.iv[p], Type: typ}, send)
}

func (s *Sim) add(r Rules, ev Event, send int32) {
	ev.Stamp = r.Stamp(s, ev.P, ev.Kind, ev.Type, send)
	id := int32(len(s.Events))
	words := (len(s.Events) + 64) / 64
	past := make([]uint64, words)
	if l := s.last[ev.P]; l != trace.None {
		copy(past, s.past[l])
	}
	if ev.Kind == trace.Recv {
		for w, b := range s.past[send] {
			past[w] |= b
		}
	}
	past[id/64] |= 1 << (id % 64)
	s.Events = append(s.Events, ev)
	s.past = append(s.past, past)
	s.last[ev.P] = id
	if ev.Kind == trace.Send {
		s.sendEv[ev.Msg] = id
	}
	if ev.Kind.IsOp() {
		s.ops[ev.P]++
	}
}

// Before reports whether event e happened before event f, or is f.
func (s *Sim) Before(e, f int32) bool {
	w := s.past[f]
	return int(e/64) < len(w) && w[e/64]&(1<<(e%64)) != 0
}

// Last returns p's latest event, or None.
func (s *Sim) Last(p int32) int32 { return s.last[p] }

// Interval returns p's current interval.
func (s *Sim) Interval(p int32) int32 { return s.iv[p] }

// SameCheckpoints reports how a run's pattern differs from the model's
// checkpoints, or "" if they agree on every position and type.
func (s *Sim) SameCheckpoints(pt *Pattern) string {
	for p := range s.Ckpts {
		if !slices.Equal(s.Ckpts[p], pt.Ckpts[p]) || !slices.Equal(s.Types[p], pt.Types[p]) {
			return fmt.Sprintf("process %d: run checkpoints at %v %v, reference at %v %v", p, pt.Ckpts[p], pt.Types[p], s.Ckpts[p], s.Types[p])
		}
	}
	return ""
}
