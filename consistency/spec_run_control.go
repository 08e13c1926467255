package consistency

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// The run spec's control messages: the network delivers each once,
// unchanged, control_delay after its send in a replay (SPEC §3), and it
// names a failure that happened.

// ctlKey identifies a control message in flight (bodies are left out: a
// foreign run may omit them on one end).
type ctlKey struct {
	from, to int32
	control  trace.Control
	failure  int32
}

func ctlKeyOf(e *trace.RunEvent, from, to int32) ctlKey {
	return ctlKey{from: from, to: to, control: e.Control, failure: e.Failure}
}

// controlSent puts a control message in flight.
func (s *runSpec) controlSent(seq int32, e *trace.RunEvent) {
	if s.inFlight == nil {
		s.inFlight = make(map[ctlKey][]int32)
	}
	k := ctlKeyOf(e, e.P, e.Peer)
	s.inFlight[k] = append(s.inFlight[k], seq)
}

// controlArrived takes a control message out of flight: of those in
// flight with its key, the first with its body, else the first one, whose
// body then changed (no body differs from an absent one).
func (s *runSpec) controlArrived(seq int32, e *trace.RunEvent) {
	k := ctlKeyOf(e, e.Peer, e.P)
	q := s.inFlight[k]
	if len(q) == 0 {
		s.fail(equivalenceAt, []int32{seq}, func() (string, string) {
			msg := fmt.Sprintf("%s receives a %s control message at seq %d that %s never sent", s.name(e.P), e.Control, seq, s.name(e.Peer))
			return msg, notWellFormed(msg + " (or not for that failure, or it arrived already)")
		})
		return
	}
	i := slices.IndexFunc(q, func(sent int32) bool { return sameBody(s.m.Run, s.m.Event(sent), e) })
	if i < 0 {
		s.bodyChanged(seq, q[0], e)
		i = 0
	}
	s.controlDelayed(seq, q[i], e)
	if len(q) == 1 {
		delete(s.inFlight, k)
	} else {
		s.inFlight[k] = slices.Delete(q, i, i+1)
	}
}

// controlDelayed checks that a control message arrives control_delay
// after its send, in a run that claims SPEC §3's timing.
func (s *runSpec) controlDelayed(seq, sent int32, e *trace.RunEvent) {
	d := s.m.Run.Options.Params.ControlDelay
	if at := s.m.Event(sent).T + d; s.instants && e.T != at {
		s.fail(equivalenceAt, []int32{seq}, func() (string, string) {
			return fmt.Sprintf("%s receives a %s control message at seq %d, t=%s, not at t=%s", s.name(e.P), e.Control, seq, e.T, at),
				fmt.Sprintf("control messages take control_delay %s (the run's params), and this one was sent at seq %d, t=%s", d, sent, s.m.Event(sent).T)
		})
	}
}

// bodyChanged reports a control message received with another body
// than the one it was sent with at seq sent.
func (s *runSpec) bodyChanged(seq, sent int32, e *trace.RunEvent) {
	m := s.m
	s.fail(equivalenceAt, []int32{sent, seq}, func() (string, string) {
		msg := fmt.Sprintf("%s receives a %s control message at seq %d whose body differs from the one %s sent at seq %d",
			s.name(e.P), e.Control, seq, s.name(e.Peer), sent)
		return msg, notWellFormed(fmt.Sprintf("the network delivers a control message unchanged, but %s sent %s at seq %d and %s received %s at seq %d",
			s.name(e.Peer), describeBody(m, m.Run.Body(m.Event(sent))), sent, s.name(e.P), describeBody(m, m.Run.Body(e)), seq))
	})
}

// sameBody reports whether two control events carry the same body, or
// one of them none. Bodies the engine shares (one index) are equal
// without a look; a token's receipt list is compared entry by entry.
func sameBody(run *trace.Run, a, b *trace.RunEvent) bool {
	if a.Body == b.Body || a.Body == history.None || b.Body == history.None {
		return true
	}
	x, y := run.Body(a), run.Body(b)
	if x.Origin != y.Origin || x.Count != y.Count || x.R != y.R || x.Inc != y.Inc || x.K != y.K {
		return false
	}
	return x.SameReceived(y)
}

// controlRecv notes what the receiver heard, and checks the failure the
// message names.
func (s *runSpec) controlRecv(seq int32, e *trace.RunEvent) {
	s.hear(e.P, e.Failure, 1<<e.Control)
	if _, ok := s.m.FailureAt(e.Failure); !ok && e.Failure != history.None {
		s.fail(equivalenceAt, []int32{seq}, func() (string, string) {
			return fmt.Sprintf("control message received at seq %d answers failure seq %d, which is no fail event", seq, e.Failure),
				fmt.Sprintf("the control_recv of %s at seq %d names failure seq %d, but the run has no effective fail event there", s.name(e.P), seq, e.Failure)
		})
	}
}

// controlsPending reports the control messages still in flight at the
// end, in send order.
func (s *runSpec) controlsPending() {
	type sent struct {
		key ctlKey
		seq int32
	}
	var out []sent
	for k, seqs := range s.inFlight {
		for _, x := range seqs {
			out = append(out, sent{k, x})
		}
	}
	slices.SortFunc(out, func(a, b sent) int { return cmp.Compare(a.seq, b.seq) })
	for _, c := range out {
		s.fail(equivalenceAt, []int32{c.seq}, func() (string, string) {
			msg := fmt.Sprintf("the %s control message %s sends at seq %d never arrives", c.key.control, s.name(c.key.from), c.seq)
			return msg, notWellFormed(msg + ": the network delivers every control message, and a run ends only when none is pending")
		})
	}
}
