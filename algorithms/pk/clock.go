package pk

import "github.com/ckpt-dev/ckpt/trace"

// clock is a process's vector time (SPEC §5), kept so that a receipt
// costs no vector work: the vector is the entry-wise maximum of a base —
// the process's latest vector handed out (a piggyback or a checkpoint's
// vector), immutable and shared with it — and the piggybacks received
// since, with the process's own entry kept apart. The vector is made
// only when one is handed out (a send's piggyback, a checkpoint), in one
// pass over the base and the pending piggybacks, and it becomes the new
// base. So a process holds no vector of its own (at 4,096 processes that
// was 128 MB), a receipt reads and writes none (it used to merge into the
// process's vector, a cold read and write of n entries), and a clock is
// a few words over immutable vectors: cloning a PK state copies no
// vector.
type clock struct {
	base    trace.VT   // nil: all zero
	pending []trace.VT // received since base was made
	own     trace.VTEntry
	self    int32
	n       int32
}

// maxPending bounds the piggybacks a clock keeps unmerged: a process that
// receives much and sends little makes a vector every so many receipts
// (each kept piggyback is alive anyway, as a live receipt's).
const maxPending = 64

// entry returns the clock's entry for process q.
func (c *clock) entry(q int32) trace.VTEntry {
	if q == c.self {
		return c.own
	}
	var e trace.VTEntry
	if c.base != nil {
		e = c.base[q]
	}
	for _, v := range c.pending {
		if int(q) < len(v) && e.Less(v[q]) {
			e = v[q]
		}
	}
	return e
}

// receive merges pb into the clock.
func (c *clock) receive(pb trace.VT) {
	if c.pending = append(c.pending, pb); len(c.pending) >= maxPending {
		c.vector()
	}
}

// vector returns the clock as a new vector, which becomes its base: the
// caller may hand it out (it is never written again).
func (c *clock) vector() trace.VT {
	if c.fresh() {
		return c.base
	}
	var v trace.VT
	if c.base != nil {
		v = append(v, c.base...) // not zeroed first, as make would
	} else {
		v = make(trace.VT, c.n)
	}
	for _, pb := range c.pending {
		v.Merge(pb)
	}
	v[c.self] = c.own
	clear(c.pending) // what stays in the array's tail stays alive
	c.base, c.pending = v, c.pending[:0]
	return v
}

// fresh reports whether the base is the clock: nothing received since it
// was made, and the own entry as it says.
func (c *clock) fresh() bool {
	return c.base != nil && len(c.pending) == 0 && c.base[c.self] == c.own
}

// restore sets the clock to vt (a checkpoint's vector) with own entry own.
func (c *clock) restore(vt trace.VT, own trace.VTEntry) {
	clear(c.pending)
	c.base, c.pending, c.own = vt, c.pending[:0], own
}

// orphanOf reports whether the clock is an orphan of a known
// announcement, looking at the entries of the announced processes only.
func (c *clock) orphanOf(k *Known) bool {
	for i, q := range k.origins {
		if k.orphanAt(i, c.entry(q)) {
			return true
		}
	}
	return false
}
