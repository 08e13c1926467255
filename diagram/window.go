package diagram

import "github.com/ckpt-dev/ckpt/trace"

// window chooses the events to draw: all of them for a small run, else
// the first maxEvents/2 events and aroundFailure events either side of
// each failure's recovery, as many failures as maxEvents allows, plus
// every checkpoint a drawn rollback restores.
func (m *model) window(maxEvents int) {
	ev := m.run.Events
	for i := range ev {
		if ev[i].Kind == trace.Fail {
			m.failures++
		}
	}
	if m.n <= maxEvents {
		m.shown = m.drawRange(0, m.n)
		m.failShown = m.failures
		return
	}
	m.windowed = true
	budget := maxEvents
	// Share the budget between the start and the failures: many failures
	// get a shorter start and tighter surroundings rather than being
	// dropped.
	head, around := maxEvents/2, aroundFailure
	if m.failures > 0 {
		head = min(head, max(budget/(m.failures+1), budget/10))
		around = min(around, max((budget-head)/(m.failures*4), 8))
	}
	budget -= m.drawRange(0, min(head, budget))
	m.drawFailures(budget, around)
	for i := range ev {
		e := &ev[i]
		if m.drawn[i] && (e.Kind == trace.Restart || e.Kind == trace.Rollback) {
			if c, ok := m.restored(int32(i)); ok && c != trace.None {
				m.drawn[c] = true
			}
		}
	}
	m.findGaps()
}

// drawFailures draws, failure by failure while the budget lasts, the
// events from around before each fail to around after the last event
// answering it.
func (m *model) drawFailures(budget, around int) {
	ev := m.run.Events
	// The last event answering each failure bounds its recovery.
	last := make(map[int32]int32)
	for i := range ev {
		if f := ev[i].Failure; f >= 0 {
			last[f] = int32(i)
		}
	}
	for i := range ev {
		if ev[i].Kind != trace.Fail {
			continue
		}
		end := i
		if l, ok := last[int32(i)]; ok {
			end = int(l)
		}
		// A recovery that drags on is cut: the budget is for many
		// failures, not one.
		end = min(end, i+4*around)
		lo, hi := i-around, end+around+1
		need := 0
		for j := max(lo, 0); j < min(hi, m.n); j++ {
			if !m.drawn[j] {
				need++
			}
		}
		if need > budget {
			if budget == 0 {
				continue
			}
			// Too little left for its surroundings: the fail and what
			// answers it, as far as the budget goes, rather than no sign
			// of it (ux6: a 25-event window left out the only failure).
			lo, hi = i, min(i+budget, end+1)
		}
		budget -= m.drawRange(lo, hi)
		m.failShown++
	}
}

// drawRange draws events [lo, hi) and returns how many were not drawn yet.
func (m *model) drawRange(lo, hi int) int {
	lo, hi = max(lo, 0), min(hi, m.n)
	c := 0
	for i := lo; i < hi; i++ {
		if !m.drawn[i] {
			m.drawn[i] = true
			c++
		}
	}
	return c
}

// findGaps records every stretch of left-out events, and counts the
// drawn ones.
func (m *model) findGaps() {
	ev := m.run.Events
	omitted := 0
	var t0 trace.Time
	for i := range ev {
		if !m.drawn[i] {
			if omitted == 0 {
				t0 = ev[i].T
			}
			omitted++
			continue
		}
		m.shown++
		if omitted > 0 {
			m.gaps = append(m.gaps, gap{before: int32(i), omitted: omitted, t0: t0, t1: ev[i].T})
			omitted = 0
		}
	}
	if omitted > 0 {
		m.gaps = append(m.gaps, gap{before: trace.None, omitted: omitted, t0: t0, t1: ev[m.n-1].T})
	}
}
