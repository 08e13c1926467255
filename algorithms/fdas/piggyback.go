package fdas

import "github.com/ckpt-dev/ckpt/trace"

// FDAS piggybacks its dependency vector D whole, one entry per process:
// the run format's "dv" (trace.CIC.DV, docs/formats.md), 4 bytes an
// entry.

// piggyback returns D as a piggyback, copying it into slab only when D
// changed since the last send: sends of one state share the vector.
func (pr *proc) piggyback(slab *trace.CICSlab) trace.Piggyback {
	if pr.pb == nil {
		pr.pb = slab.CIC()
		pr.pb.DV = slab.Ints(len(pr.d))
		copy(pr.pb.DV, pr.d)
	}
	pb := trace.NewPiggyback()
	pb.CIC = pr.pb
	return pb
}

// dv returns m's dependency vector, or nil if it carries none.
func dv(m *trace.Piggyback) []int32 {
	if m == nil || m.CIC == nil {
		return nil
	}
	return m.CIC.DV
}

// newer reports whether m's D has some entry above pr's.
func (pr *proc) newer(m *trace.Piggyback) bool {
	for k, v := range dv(m) {
		if k < len(pr.d) && v > pr.d[k] {
			return true
		}
	}
	return false
}

// merge sets D := max(D, m.D).
func (pr *proc) merge(m *trace.Piggyback) {
	for k, v := range dv(m) {
		if k < len(pr.d) && v > pr.d[k] {
			pr.d[k] = v
			pr.pb = nil
		}
	}
}
