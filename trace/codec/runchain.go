package codec

import "github.com/ckpt-dev/ckpt/trace"

// The rule by which ckpt/run@2 writes a vector time as the entries that
// differ from one the reader rebuilds (docs/formats.md, "Compact runs").
// Writer and reader keep the same state, event by event, so both start
// a vector from the same base: the process's previous vector in the file
// merged with the piggyback vectors of the copies it has received since.
// A PK process's next vector is exactly that, but its own entry; so a
// vector of thousands of entries is written as one or two.

// vtChain is that state.
type vtChain struct {
	// prev is, per process, the vector of its latest event that has one
	// (a checkpoint's vt, a send's pb.vt), nil before the first.
	prev []trace.VT
	// pending is, per process, the piggyback vectors of the copies it
	// has received since then, each at its first recv.
	pending [][]trace.VT
	// flight holds the piggyback vector of every copy sent and not yet
	// received, discarded or left unconsumed.
	flight map[copyKey]trace.VT
}

// maxPending is how many piggybacks a process's base may wait to be
// merged with.
const maxPending = 64

// copyKey names one transmitted copy of a message.
type copyKey struct{ msg, copy int32 }

func newVTChain(n int) *vtChain {
	return &vtChain{prev: make([]trace.VT, n), pending: make([][]trace.VT, n), flight: map[copyKey]trace.VT{}}
}

// baseInto sets b to the vector process p's next vector starts from: its
// previous one merged with its pending piggybacks (the zero vector for
// none).
func (c *vtChain) baseInto(p int32, b trace.VT) {
	if prev := c.prev[p]; len(prev) == len(b) {
		copy(b, prev)
	} else {
		clear(b)
	}
	for _, v := range c.pending[p] {
		b.Merge(v)
	}
}

// diff appends to out the processes whose entries of vt differ from p's
// base, made in base, and reports false as soon as there are more than
// limit.
func (c *vtChain) diff(p int32, vt, base trace.VT, out []int32, limit int) ([]int32, bool) {
	c.baseInto(p, base)
	for i, x := range vt {
		if x != base[i] {
			if out = append(out, int32(i)); len(out) > limit {
				return out, false
			}
		}
	}
	return out, true
}

// took records vt as process p's latest vector.
func (c *vtChain) took(p int32, vt trace.VT) {
	c.prev[p] = vt
	// Cleared, not only cut: what stays in the array's tail is kept
	// alive (at 4,096 processes, 0.7 GB of vectors).
	clear(c.pending[p])
	c.pending[p] = c.pending[p][:0]
}

// event follows e, whose vector time or piggyback vector (if any) is vt:
// a vector event of its process, a copy sent, received or gone.
func (c *vtChain) event(e *trace.RunEvent, vt trace.VT) {
	if e.P < 0 || int(e.P) >= len(c.prev) {
		return
	}
	k := copyKey{e.Msg, e.Copy}
	if vt != nil {
		c.took(e.P, vt)
		if e.Kind == trace.Send {
			c.flight[k] = vt
		}
		return
	}
	switch e.Kind {
	case trace.Recv:
		if v, ok := c.flight[k]; ok {
			c.pending[e.P] = append(c.pending[e.P], v)
			delete(c.flight, k)
			if len(c.pending[e.P]) == maxPending {
				// The base is the same merged now or later; merged, a
				// process that only receives keeps no list of vectors.
				b := make(trace.VT, len(c.prev))
				c.baseInto(e.P, b)
				c.took(e.P, b)
			}
		}
	case trace.Discard, trace.Unconsumed:
		delete(c.flight, k)
	}
}

// vectorOf returns e's vector time: a checkpoint's, or its piggyback's.
func vectorOf(r *trace.Run, e *trace.RunEvent) trace.VT {
	if vt := r.VTOf(e); vt != nil {
		return vt
	}
	if pb := r.PB(e); pb != nil {
		return pb.VT
	}
	return nil
}
