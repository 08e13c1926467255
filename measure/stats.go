package measure

import (
	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// Stats counts the report's stats (SPEC §9). Piggyback bytes count a
// compact binary encoding (trace.Piggyback.Bytes: 4 bytes per number, 8
// per F or VT entry, a bit per HMNR flag), so algorithms are compared on
// what they carry, not on JSON spelling — by the same definition as
// ckpt compare.
func Stats(m *history.Model) report.Stats {
	s := report.Stats{Events: len(m.Run.Events), PiggybackBytes: m.PiggybackBytes}
	s.Checkpoints.Initial = len(m.Procs)
	seen := make([]bool, len(m.Run.Msgs))
	for i := range m.Run.Events {
		e := &m.Run.Events[i]
		switch e.Kind {
		case trace.Send:
			if e.Msg >= 0 && int(e.Msg) < len(seen) && !seen[e.Msg] {
				seen[e.Msg] = true
				s.Messages++
			}
		case trace.Recv:
			if e.Via == trace.ViaLog {
				s.Replayed++
			}
		}
		if e.P >= 0 && int(e.P) < len(m.Procs) {
			countEvent(&s, e)
		}
	}
	for i := range m.Restores {
		s.Undone += len(m.Restores[i].Undid)
		s.Replayed += int(m.Restores[i].Replayed)
	}
	if m.Final != nil && m.Final.Built().Err == nil {
		s.Checkpoints.Useless = m.Final.Graph.UselessCount()
	}
	if m.Alg.IsMS() && !m.Missing.Ops {
		s.Checkpoints.Collectable = collectable(m)
	}
	return s
}

// countEvent counts an event of a process named in the header.
func countEvent(s *report.Stats, e *trace.RunEvent) {
	switch e.Kind {
	case trace.Send:
		if e.Resend {
			s.Resent++
		}
	case trace.Checkpoint:
		switch e.CkptType {
		case trace.CkptBasic:
			s.Checkpoints.Basic++
		case trace.CkptForced:
			s.Checkpoints.Forced++
		case trace.CkptRecovery:
			s.Checkpoints.Recovery++
		}
	case trace.CheckpointSkipped:
		s.Checkpoints.Skipped++
	case trace.Rollback:
		s.Rollbacks++
	case trace.Log:
		s.Logged++
	case trace.Discard:
		s.Discarded++
		if s.DiscardedBy == nil {
			s.DiscardedBy = map[string]int{}
		}
		s.DiscardedBy[e.Reason.String()]++
	case trace.Hold:
		s.Holds++
	case trace.ControlSend:
		s.ControlMessages++
		if e.Control == trace.ControlToken {
			s.TokenHops++
		}
	}
}

// collectable counts the MS checkpoints SPEC §4.2's garbage collection
// may drop at the end: with every recovery applied everywhere, those
// before S_n for the largest n every process has reached.
func collectable(m *history.Model) int {
	np := len(m.Procs)
	for fi := range m.Failures {
		seen := make([]bool, np)
		for _, h := range m.Failures[fi].Handlers {
			seen[m.Event(h).P] = true
		}
		for _, s := range seen {
			if !s {
				return 0
			}
		}
	}
	n := int32(-1)
	for p := range m.Procs {
		pr := &m.Procs[p]
		if top := pr.HeldCkpt(len(pr.Held) - 1).Sn; n == -1 || top < n {
			n = top
		}
	}
	count := 0
	for p := range m.Procs {
		for k := range m.Procs[p].Held {
			if m.Procs[p].HeldCkpt(k).Sn >= n {
				break
			}
			count++
		}
	}
	return count
}
