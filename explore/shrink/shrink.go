// Package shrink makes a failing execution trace smaller while it keeps
// failing: delta debugging (Zeller and Hildebrandt's ddmin) over the
// trace's processes, then its messages (a send together with its
// receive), then its single events — receives, internal ops, ticks,
// flushes and fails, injected or not — repeated until no pass removes
// anything. Every candidate is a valid ckpt/trace@1 trace; times, labels
// and params are kept as they are.
package shrink

import (
	"slices"

	"github.com/ckpt-dev/ckpt/trace"
)

// Result is a shrunk trace and what it cost.
type Result struct {
	Trace *trace.Trace
	// Tests counts the calls of the predicate.
	Tests int
}

// Trace shrinks tr, for which fails must hold, calling fails at most
// maxTests times (at least once per pass is not promised: the budget is a
// hard bound). The result is tr itself when nothing could be removed.
func Trace(tr *trace.Trace, fails func(*trace.Trace) bool, maxTests int) Result {
	s := &state{
		src:      tr,
		fails:    fails,
		budget:   maxTests,
		keepProc: slices.Repeat([]bool{true}, len(tr.Processes)),
		keepEv:   slices.Repeat([]bool{true}, len(tr.Events)),
		best:     tr,
	}
	for {
		before := s.best
		s.ddmin(units(len(tr.Processes), func(p int) bool { return s.keepProc[p] }),
			func(p int) { s.keepProc[p] = false })
		s.ddmin(units(len(tr.Msgs), s.sent), s.dropMsg)
		s.ddmin(units(len(tr.Events), func(i int) bool { return s.keepEv[i] && tr.Events[i].Kind != trace.Send }),
			func(i int) { s.keepEv[i] = false })
		if s.best == before || s.tests >= s.budget {
			break
		}
	}
	return Result{Trace: s.best, Tests: s.tests}
}

// state is the current candidate: which processes and events are kept.
type state struct {
	src      *trace.Trace
	fails    func(*trace.Trace) bool
	budget   int
	tests    int
	keepProc []bool
	keepEv   []bool
	best     *trace.Trace
}

// try drops units from the candidate, keeps the change if the trace it
// gives still fails, and reverts it otherwise.
func (s *state) try(units []int, drop func(int)) bool {
	if s.tests >= s.budget {
		return false
	}
	procs, evs := append([]bool(nil), s.keepProc...), append([]bool(nil), s.keepEv...)
	for _, u := range units {
		drop(u)
	}
	tr := s.materialize()
	if tr != nil {
		s.tests++
		if s.fails(tr) {
			s.best = tr
			return true
		}
	}
	copy(s.keepProc, procs)
	copy(s.keepEv, evs)
	return false
}

// units lists the indexes below n that keep holds for: the units a pass
// may still remove.
func units(n int, keep func(int) bool) []int {
	var u []int
	for i := range n {
		if keep(i) {
			u = append(u, i)
		}
	}
	return u
}

// sent reports whether message m's send is kept.
func (s *state) sent(m int) bool {
	send := s.src.Messages[m].Send
	return send != trace.None && s.keepEv[send]
}

// dropMsg drops message m's send and receive.
func (s *state) dropMsg(m int) {
	msg := s.src.Messages[m]
	s.keepEv[msg.Send] = false
	if msg.Recv != trace.None {
		s.keepEv[msg.Recv] = false
	}
}

// materialize builds the candidate trace: kept processes (renumbered),
// kept events of kept processes, without sends to dropped processes or
// receives of dropped sends, and only the messages still sent. It
// returns nil when the result is not a valid trace or has no process.
func (s *state) materialize() *trace.Trace {
	src := s.src
	newP := make([]int32, len(src.Processes))
	out := &trace.Trace{Name: src.Name, Params: src.Params, Labels: slices.Clip(src.Labels)}
	for p, name := range src.Processes {
		newP[p] = trace.None
		if s.keepProc[p] {
			newP[p] = int32(len(out.Processes))
			out.Processes = append(out.Processes, name)
		}
	}
	if len(out.Processes) == 0 {
		return nil
	}
	newM := slices.Repeat([]int32{trace.None}, len(src.Msgs))
	for i := range src.Events {
		ev := src.Events[i]
		if !s.keepEv[i] || newP[ev.P] == trace.None {
			continue
		}
		switch ev.Kind {
		case trace.Send:
			if newP[ev.To] == trace.None {
				continue
			}
			newM[ev.Msg] = int32(len(out.Msgs))
			out.Msgs = append(out.Msgs, src.Msgs[ev.Msg])
			ev.To = newP[ev.To]
			ev.Msg = newM[ev.Msg]
		case trace.Recv:
			if newM[ev.Msg] == trace.None {
				continue
			}
			ev.Msg = newM[ev.Msg]
		}
		ev.P = newP[ev.P]
		out.Events = append(out.Events, ev)
	}
	if err := trace.Validate(out); err != nil {
		return nil
	}
	return out
}

// ddmin removes as many units as it can (drop removes one; try keeps a
// removal that keeps the failure): chunks first, halving their size
// when no chunk can go, down to single units.
func (s *state) ddmin(units []int, drop func(int)) {
	n := 2
	for len(units) > 0 {
		if len(units) == 1 {
			s.try(units, drop)
			return
		}
		size := (len(units) + n - 1) / n
		removed := false
		for start := 0; start < len(units); start += size {
			end := min(start+size, len(units))
			if s.try(units[start:end], drop) {
				units = append(append([]int(nil), units[:start]...), units[end:]...)
				n = max(n-1, 2)
				removed = true
				break
			}
		}
		if removed {
			continue
		}
		if size == 1 {
			return
		}
		n = min(2*n, len(units))
	}
}
