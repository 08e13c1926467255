package codec

import (
	"fmt"
	"unicode/utf8"

	"github.com/ckpt-dev/ckpt/trace"
)

// The vectors of the communication-induced checkpointing protocols in a
// piggyback (docs/formats.md): FDAS's "dv", HMNR's "lc", "ckpt", "taken"
// and "greater". They are read into a CIC carved from the decoder's
// CICSlab, as the protocols build theirs, so that a decoded run is the
// run the engine produced. Their lengths are checked in check (rundecode.go), where
// the number of processes is known even when the events come first.

// cic reads lc, dv, ckpt, taken and greater into a new CIC. Each field
// is read on its own, so the first error in that order is the one a
// reader stopping at it would report.
func (d *runDecoder) cic(f *frame) (*trace.CIC, error) {
	w := &d.pb
	c := d.slab.CIC()
	var errs [4]error
	c.DV, errs[0] = d.vector(f, "pb.dv", w.DV)
	c.Ckpt, errs[1] = d.vector(f, "pb.ckpt", w.Ckpt)
	c.Taken, errs[2] = d.bits(f, "pb.taken", w.Taken)
	c.Greater, errs[3] = d.bits(f, "pb.greater", w.Greater)
	return c, firstErr(optInt(f, "pb.lc", w.LC, 0, &c.LC), errs[0], errs[1], errs[2], errs[3])
}

// vector reads an array of integers >= 0, or nil when v is absent, as
// vtField does.
func (d *runDecoder) vector(f *frame, key string, v []byte) ([]int32, error) {
	if len(v) == 0 {
		return nil, nil
	}
	if err := d.ints(f, key, v, 0, "integers"); err != nil {
		return nil, err
	}
	out := []int32{} // [] is an empty vector, not an absent one
	if len(d.flat) > 0 {
		out = d.slab.Ints(len(d.flat))
	}
	for i, x := range d.flat {
		out[i] = int32(x)
	}
	return out, nil
}

// bits reads a string of '0' and '1', one flag per process, or nil when
// v is absent.
func (d *runDecoder) bits(f *frame, key string, v []byte) ([]bool, error) {
	s, err := stringField(f, key, v, &d.buf)
	if err != nil || len(v) == 0 {
		return nil, err
	}
	out := []bool{} // "" is an empty vector, not an absent one
	if len(s) > 0 {
		out = d.slab.Bools(len(s))
	}
	for i, c := range s {
		switch c {
		case '1':
			out[i] = true
		case '0':
		default:
			r, _ := utf8.DecodeRune(s[i:])
			return nil, f.eventErr("%q must be a string of 0s and 1s, one per process; found %q", key, r)
		}
	}
	return out, nil
}

// cicLengthErr says which vector of c is not one entry per process (n),
// or "" when all are.
func cicLengthErr(c *trace.CIC, n int) string {
	for _, v := range [...]struct {
		key string
		n   int
		has bool
	}{
		{"pb.dv", len(c.DV), c.DV != nil},
		{"pb.ckpt", len(c.Ckpt), c.Ckpt != nil},
		{"pb.taken", len(c.Taken), c.Taken != nil},
		{"pb.greater", len(c.Greater), c.Greater != nil},
	} {
		if v.has && v.n != n {
			return fmt.Sprintf("%q must have one entry per process (%d), not %d", v.key, n, v.n)
		}
	}
	return ""
}
