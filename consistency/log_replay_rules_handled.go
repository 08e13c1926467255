package consistency

import (
	"fmt"
	"strings"

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
	for base := 0; base < len(m.Failures); base += history.BatchSize {
		if d := m.Dependence(base); d != nil {
			deliveriesAfterHandling(m, d, r)
		}
	}
}

// deliveriesAfterHandling sweeps the run once for the failures d covers.
func deliveriesAfterHandling(m *history.Model, d *history.Dependence, r *result) {
	handled := make([]uint64, len(m.Procs)) // per process, the failures it has handled
	at := map[[2]int32]int32{}              // (process, failure) → first handling seq
	next := 0
	for i := range m.Run.Events {
		seq := int32(i)
		for ; next < len(m.Handlings) && m.Handlings[next].Seq < seq; next++ {
			h := m.Handlings[next]
			if b := d.Bit(h.F); b != 0 && handled[h.P]&b == 0 {
				handled[h.P] |= b
				at[[2]int32{h.P, h.F}] = h.Seq
			}
		}
		e := &m.Run.Events[i]
		if e.Kind != trace.Recv || e.Op == history.None || e.P < 0 || int(e.P) >= len(handled) {
			continue
		}
		s := m.SendOf[i]
		if s == history.None || d.U[s]&handled[e.P] == 0 {
			continue
		}
		fi := firstFailure(d, d.U[s]&handled[e.P])
		deliveredOrphan(m, d, seq, fi, at[[2]int32{e.P, fi}], r)
	}
}

// firstFailure returns the lowest failure index among the bits.
func firstFailure(d *history.Dependence, bits uint64) int32 {
	for fi := d.Base; fi < d.Hi; fi++ {
		if bits&d.Bit(fi) != 0 {
			return fi
		}
	}
	return history.None
}

// deliveredOrphan reports the receive at seq of an orphan of failure fi,
// which its process had handled at seq h.
func deliveredOrphan(m *history.Model, d *history.Dependence, seq, fi, h int32, r *result) {
	e := m.Event(seq)
	s := m.SendOf[seq]
	var b strings.Builder
	fmt.Fprintf(&b, "%s handled %s at seq %d (%s), so it knows which events that failure undid and must discard their orphans, yet it delivers %s at seq %d: ",
		m.ProcName(e.P), m.FailName(fi), h, m.Event(h).Kind, m.MsgName(e.Msg), seq)
	seqs := orphanChain(m, d, &b, s, d.Bit(fi), []int32{h, seq, s})
	if by := m.UndoneBy[seq]; by >= 0 {
		fmt.Fprintf(&b, "; the %s at seq %d undid the receipt again, but the state in between was an orphan", m.Event(by).Kind, by)
	}
	r.fail(fmt.Sprintf("%s delivers orphan %s at seq %d after handling failure seq %d", m.ProcName(e.P), m.MsgName(e.Msg), seq, m.Failures[fi].Seq), seqs, b.String())
}
