package pk

import "github.com/ckpt-dev/ckpt/trace"

// slab hands out vectors from large blocks, so that piggybacks and
// checkpoint vectors cost no allocation per event.
type slab struct {
	n   int
	buf []trace.VTEntry
	// next is the number of vectors in the next block. It starts at the
	// trace's size, so that a tiny trace does not pay for a half-megabyte
	// block it never fills, and doubles up to slabVectors(n), the block a
	// large trace gets from the start.
	next int
}

// slabVectors is the number of vectors in a full-size block: about 64K
// entries, and never fewer than 64 vectors.
func slabVectors(n int) int { return max(64, 65536/max(1, n)) }

func (s *slab) clone(v trace.VT) trace.VT {
	if len(s.buf) < s.n {
		full := slabVectors(s.n)
		k := min(max(s.next, 8), full)
		s.next = min(2*k, full)
		s.buf = make([]trace.VTEntry, s.n*k)
	}
	out := s.buf[:s.n:s.n]
	s.buf = s.buf[s.n:]
	copy(out, v)
	return out
}
