package history

import "github.com/ckpt-dev/ckpt/trace"

// BatchSize is how many failures one Dependence covers: one bit each.
const BatchSize = 64

// Dependence is the model's happened-before, closed over the undone sets
// of the failures Base … Hi−1 (at most BatchSize of them, one bit each,
// bit f−Base for failure f). For every app op (indexed by seq):
//
//   - U: it depends on an event undone for f (U_f: what f's restart and
//     the rollbacks attributed to f undid) — it is, or follows, an orphan;
//   - L: it depends on an event f's process lost at its restart (L_f);
//   - Orph: the state right after it holds a receipt of an orphan of f.
//
// Happened-before is program order plus send → receive of the copy a
// receive consumed (a resend counts as the send it repeats). The run is
// in time order and both predecessors of an op come earlier, so one
// forward pass computes it: 24 bytes per event, no vector clocks.
type Dependence struct {
	Base, Hi   int32
	U, L, Orph []uint64
}

// Bit returns failure fi's bit in d, or 0 when d does not cover it.
func (d *Dependence) Bit(fi int32) uint64 {
	if fi < d.Base || fi >= d.Hi {
		return 0
	}
	return uint64(1) << (fi - d.Base)
}

// Dependence returns the dependence of failures base … base+BatchSize−1.
// A run with at most BatchSize failures has it computed once, at Finish;
// otherwise every call computes it anew (one pass over the events). nil
// when the run lacks the op or copy numbers it needs.
func (m *Model) Dependence(base int) *Dependence {
	if m.dep != nil && m.dep.Base == int32(base) {
		return m.dep
	}
	if m.Missing.Ops || m.Missing.Copy || base >= len(m.Failures) {
		return nil
	}
	return m.dependence(int32(base))
}

func (m *Model) dependence(base int32) *Dependence {
	n := len(m.Run.Events)
	d := &Dependence{Base: base, Hi: min(base+BatchSize, int32(len(m.Failures))),
		U: make([]uint64, n), L: make([]uint64, n), Orph: make([]uint64, n)}
	for i := 0; i < n; i++ {
		e := &m.Run.Events[i]
		if !isApp(e) || e.Op == None {
			continue
		}
		u, l := m.Own(d, int32(i))
		var o uint64
		if p := m.Pred[i]; p != None {
			u |= d.U[p]
			l |= d.L[p]
			o = d.Orph[p]
		}
		if e.Kind == trace.Recv {
			if s := m.SendOf[i]; s != None {
				u |= d.U[s]
				l |= d.L[s]
				o |= d.U[s]
			}
		}
		d.U[i], d.L[i], d.Orph[i] = u, l, o
	}
	return d
}

// Own returns the bits of the failures in d that undid event s itself:
// in U if a restart or rollback attributed to it undid s, in L too if
// that was the failed process's restart.
func (m *Model) Own(d *Dependence, s int32) (u, l uint64) {
	by := m.UndoneBy[s]
	if by < 0 {
		return 0, 0
	}
	fi := m.FailOf(by)
	if fi < 0 {
		return 0, 0
	}
	b := d.Bit(fi)
	if m.Run.Events[by].Kind == trace.Restart {
		return b, b
	}
	return b, 0
}
