package hmnr

import "github.com/ckpt-dev/ckpt/trace"

// HMNR piggybacks (lc, greater, taken, ckpt): the run format's "lc",
// "greater", "taken" and "ckpt" (trace.CIC, docs/formats.md), 4 bytes
// for lc and each ckpt entry and one bit each flag.

// piggyback returns (lc, greater, taken, ckpt) as a piggyback, copying
// the vectors into slab only when the state changed since the last send:
// sends of one state share them.
func (pr *proc) piggyback(slab *trace.CICSlab) trace.Piggyback {
	if pr.pb == nil {
		n := len(pr.ckpt)
		c := slab.CIC()
		c.LC, c.Ckpt, c.Taken, c.Greater = pr.lc, slab.Ints(n), slab.Bools(n), slab.Bools(n)
		copy(c.Ckpt, pr.ckpt)
		copy(c.Taken, pr.taken)
		copy(c.Greater, pr.greater)
		pr.pb = c
	}
	pb := trace.NewPiggyback()
	pb.CIC = pr.pb
	return pb
}

// message is a received piggyback, read in place; a vector shorter than
// the processes reads as zero and false beyond its end, and a piggyback
// without HMNR's fields as lc −1 (lower than any clock: it forces
// nothing and changes nothing).
type message struct {
	lc int32
	c  *trace.CIC
}

var noCIC trace.CIC

// decode reads pb.
func decode(pb *trace.Piggyback) message {
	if pb == nil || pb.CIC == nil || pb.CIC.LC == trace.None {
		return message{lc: -1, c: &noCIC}
	}
	return message{lc: pb.CIC.LC, c: pb.CIC}
}

func (m *message) ckpt(k int32) int32 {
	if int(k) < len(m.c.Ckpt) {
		return m.c.Ckpt[k]
	}
	return 0
}

func (m *message) taken(k int32) bool   { return int(k) < len(m.c.Taken) && m.c.Taken[k] }
func (m *message) greater(k int32) bool { return int(k) < len(m.c.Greater) && m.c.Greater[k] }
