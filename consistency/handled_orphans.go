package consistency

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// handledOrphanDeliveries judges a rule every recovery algorithm keeps:
// a process that has handled failure f never delivers an orphan of f (a
// message whose send was undone for f, or depends on such an event) —
// MS discards it as stale, PK as an orphan of a known announcement.
// Unlike orphan-free, which looks at the state right after each handling
// point and at the end, this catches a transient orphan: one delivered
// after the handling point and rolled back again, by another failure,
// before the end.
func handledOrphanDeliveries(m *history.Model, r *result) {
	d := m.Dependence()
	if d == nil || len(m.Handlings) == 0 {
		return
	}
	hits := deliveriesAfterHandling(m, d)
	slices.SortStableFunc(hits, func(a, b orphanDelivery) int { return cmp.Compare(group(a.fi), group(b.fi)) })
	for _, h := range hits {
		deliveredOrphan(m, d, h.seq, h.fi, h.handled, r)
	}
}

// orphanDelivery is a receive at seq of an orphan of failure fi, whose
// process had handled fi at seq handled.
type orphanDelivery struct{ seq, fi, handled int32 }

// deliveriesAfterHandling sweeps the run once. A receive is reported once
// per failure group (history.BatchSize) it delivers a handled orphan of,
// for the lowest such failure of the group.
func deliveriesAfterHandling(m *history.Model, d *history.Dependence) []orphanDelivery {
	first := map[[2]int32]int32{} // (process, failure) → first handling seq
	for _, h := range m.Handlings {
		if _, ok := first[[2]int32{h.P, h.F}]; !ok {
			first[[2]int32{h.P, h.F}] = h.Seq
		}
	}
	var out []orphanDelivery
	// Nothing is handled before the first handling (they are in seq
	// order): a schedule explore judges shares that long prefix.
	for i := int(m.Handlings[0].Seq) + 1; i < len(m.Run.Events); i++ {
		e := &m.Run.Events[i]
		if e.Kind != trace.Recv || e.Op == history.None || e.P < 0 || int(e.P) >= len(m.Procs) {
			continue
		}
		s := m.SendOf[i]
		if s == history.None {
			continue
		}
		last := history.None
		for _, fi := range d.UFailures(s) {
			h, ok := first[[2]int32{e.P, fi}]
			if ok && h < int32(i) && group(fi) != last {
				last = group(fi)
				out = append(out, orphanDelivery{seq: int32(i), fi: fi, handled: h})
			}
		}
	}
	return out
}

// deliveredOrphan reports the receive at seq of an orphan of failure fi,
// which its process had handled at seq h.
func deliveredOrphan(m *history.Model, d *history.Dependence, seq, fi, h int32, r *result) {
	r.failChain(func() (string, []int32, string) {
		e, s := m.Event(seq), m.SendOf[seq]
		seqs, because := orphanChain(m, d, fmt.Sprintf("%s handled %s at seq %d (%s), so it knows which events that failure undid and must discard their orphans, yet it delivers %s at seq %d: ",
			m.ProcName(e.P), m.FailName(fi), h, m.Event(h).Kind, m.MsgName(e.Msg), seq), s, fi, []int32{h, seq, s})
		if by := m.UndoneBy[seq]; by >= 0 {
			because += fmt.Sprintf("; the %s at seq %d undid the receipt again, but the state in between was an orphan", m.Event(by).Kind, by)
		}
		return fmt.Sprintf("%s delivers orphan %s at seq %d after handling failure seq %d", m.ProcName(e.P), m.MsgName(e.Msg), seq, m.Failures[fi].Seq), seqs, because
	})
}
