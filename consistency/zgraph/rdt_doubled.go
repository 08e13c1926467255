package zgraph

import (
	"cmp"
	"slices"
	"sort"
)

// undoubled runs the second pass. For a message m sent by q in interval s
// and received by b in interval r, everything q knows causally when
// interval s closes must be known at C(b,r+1), and q must know no
// interval of b beyond r. What q knew at the send, m carries; so only the
// entries raised in interval s after the send are tested: each was raised
// by a receipt m1 that makes [m1, m] a CM-path.
func (pt *pattern) undoubled(d *deps) []RDTViolation {
	var out []RDTViolation
	for q := range pt.ops {
		ch := d.byY[q]
		cs := pt.ckpts[q]
		x, next := 0, 0
		seg, next := segment(ch, 1, next)
		for _, o := range pt.ops[q] {
			if x < len(cs) && cs[x] <= o.op {
				for x < len(cs) && cs[x] <= o.op {
					x++
				}
				seg, next = segment(ch, int32(x+1), next)
			}
			if o.recv {
				continue
			}
			m := pt.msgs[o.msg]
			b, y := m.To, pt.recvIv[o.msg]+1
			i := sort.Search(len(seg), func(i int) bool { return seg[i].at > o.op })
			for _, c := range seg[i:] {
				if c.a == b && c.v < y || c.a != b && d.known(b, c.a, y) >= c.v {
					continue
				}
				out = append(out, RDTViolation{M1: c.m, M2: o.msg,
					From: Checkpoint{P: c.a, X: c.v}, To: Checkpoint{P: b, X: y}})
			}
		}
	}
	return out
}

// segment returns the changes closed by checkpoint y, found at or after
// index from of ch (which is in checkpoint order), sorted by the position
// of the receipt that made them, and the index after them.
func segment(ch []change, y int32, from int) ([]change, int) {
	for from < len(ch) && ch[from].y < y {
		from++
	}
	to := from
	for to < len(ch) && ch[to].y == y {
		to++
	}
	seg := ch[from:to]
	slices.SortFunc(seg, func(a, b change) int { return cmp.Compare(a.at, b.at) })
	return seg, to
}
