package hmnr

import "github.com/ckpt-dev/ckpt/trace"

// The run format (SPEC §6) has no fields for HMNR's piggyback yet, so it
// is written in the existing ones: "sn" is lc, and "vt" has one pair per
// process k, [flags, ckpt[k]], flags being taken[k] (1) | greater[k] (2).
// docs/protocols.md proposes dedicated fields; only this file changes
// when they land.

const (
	flagTaken   = 1
	flagGreater = 2
)

// piggyback returns (lc, greater, taken, ckpt) as a piggyback, building
// the vector only when the state changed.
func (pr *proc) piggyback() trace.Piggyback {
	if pr.pb == nil {
		vt := make(trace.VT, len(pr.ckpt))
		for k := range vt {
			var f int32
			if pr.taken[k] {
				f |= flagTaken
			}
			if pr.greater[k] {
				f |= flagGreater
			}
			vt[k] = trace.VTEntry{Inc: f, Count: pr.ckpt[k]}
		}
		pr.pb = vt
	}
	pb := trace.NewPiggyback()
	pb.Sn, pb.VT = pr.lc, pr.pb
	return pb
}

// message is a received piggyback, read in place.
type message struct {
	lc int32
	vt trace.VT
}

// decode reads pb; entries beyond its vector read as zero and false.
func decode(pb *trace.Piggyback, n int) message {
	m := message{lc: pb.Sn, vt: pb.VT}
	if len(m.vt) > n {
		m.vt = m.vt[:n]
	}
	return m
}

func (m *message) entry(k int32) trace.VTEntry {
	if k < 0 || int(k) >= len(m.vt) {
		return trace.VTEntry{}
	}
	return m.vt[k]
}

func (m *message) ckpt(k int32) int32   { return m.entry(k).Count }
func (m *message) taken(k int32) bool   { return m.entry(k).Inc&flagTaken != 0 }
func (m *message) greater(k int32) bool { return m.entry(k).Inc&flagGreater != 0 }
