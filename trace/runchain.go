package trace

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
	prev []VT
	// pending is, per process, the piggyback vectors of the copies it
	// has received since then, each at its first recv.
	pending [][]VT
	// flight holds the piggyback vector of every copy sent and not yet
	// received, discarded or left unconsumed.
	flight map[copyKey]VT
	base   VT
}

// copyKey names one transmitted copy of a message.
type copyKey struct{ msg, copy int32 }

func newVTChain(n int) *vtChain {
	return &vtChain{prev: make([]VT, n), pending: make([][]VT, n), flight: map[copyKey]VT{}, base: make(VT, n)}
}

// baseOf returns the vector process p's next vector starts from: its
// previous one merged with its pending piggybacks (the zero vector for
// none). The result is valid until the next call.
func (c *vtChain) baseOf(p int32) VT {
	b := c.base
	if prev := c.prev[p]; len(prev) == len(b) {
		copy(b, prev)
	} else {
		clear(b)
	}
	for _, v := range c.pending[p] {
		b.Merge(v)
	}
	return b
}

// took records vt as process p's latest vector.
func (c *vtChain) took(p int32, vt VT) {
	c.prev[p] = vt
	// Cleared, not only cut: what stays in the array's tail is kept
	// alive (at 4,096 processes, 0.7 GB of vectors).
	clear(c.pending[p])
	c.pending[p] = c.pending[p][:0]
}

// event follows e, whose vector time or piggyback vector (if any) is vt:
// a vector event of its process, a copy sent, received or gone.
func (c *vtChain) event(e *RunEvent, vt VT) {
	if e.P < 0 || int(e.P) >= len(c.prev) {
		return
	}
	k := copyKey{e.Msg, e.Copy}
	if vt != nil {
		c.took(e.P, vt)
		if e.Kind == Send {
			c.flight[k] = vt
		}
		return
	}
	switch e.Kind {
	case Recv:
		if v, ok := c.flight[k]; ok {
			c.pending[e.P] = append(c.pending[e.P], v)
			delete(c.flight, k)
		}
	case Discard, Unconsumed:
		delete(c.flight, k)
	}
}

// vectorOf returns e's vector time: a checkpoint's, or its piggyback's.
func (r *Run) vectorOf(e *RunEvent) VT {
	if vt := r.VTOf(e); vt != nil {
		return vt
	}
	if pb := r.PB(e); pb != nil {
		return pb.VT
	}
	return nil
}

// Merge sets v to the entry-wise lexicographic maximum of v and o: the
// vector time of a receipt (SPEC §5).
func (v VT) Merge(o VT) {
	for i, e := range o[:min(len(v), len(o))] {
		if v[i].Less(e) {
			v[i] = e
		}
	}
}
