package fdas

import "github.com/ckpt-dev/ckpt/trace"

// The run format (SPEC §6) has no field for a dependency vector yet, so
// FDAS writes D in the piggyback's sparse per-process vector, "f" (MS's
// failure counts), which has the right shape: {"P0": 3, "P2": 1}, zero
// entries left out. docs/protocols.md proposes a dedicated field; only
// this file changes when it lands.

// piggyback returns D as a piggyback, building it only when D changed.
func (pr *proc) piggyback() trace.Piggyback {
	if pr.pb == nil {
		f := make([]trace.FEntry, 0, len(pr.d))
		for k, v := range pr.d {
			if v != 0 {
				f = append(f, trace.FEntry{P: int32(k), Count: v})
			}
		}
		pr.pb = f
	}
	pb := trace.NewPiggyback()
	pb.F = pr.pb
	return pb
}

// newer reports whether m's D has some entry above pr's.
func (pr *proc) newer(m *trace.Piggyback) bool {
	for _, e := range m.F {
		if e.P >= 0 && int(e.P) < len(pr.d) && e.Count > pr.d[e.P] {
			return true
		}
	}
	return false
}

// merge sets D := max(D, m.D).
func (pr *proc) merge(m *trace.Piggyback) {
	for _, e := range m.F {
		if e.P >= 0 && int(e.P) < len(pr.d) && e.Count > pr.d[e.P] {
			pr.d[e.P] = e.Count
			pr.pb = nil
		}
	}
}
