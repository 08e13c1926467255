package zgraph

import (
	"fmt"
	"slices"
)

// change records that entry a of the dependency vector closed by
// checkpoint y of a process is v: interval v of process a causally
// precedes that checkpoint (and the later ones, until a's next change).
// At and M are the op position and message of the receipt that raised
// the entry last in interval y−1.
type change struct {
	a, y, v int32
	at, m   int32
}

// deps holds the dependency vectors of every checkpoint as changes:
// byY[p] in the order p's checkpoints closed them; for lookups, per
// process c the changes sorted by (a, y) as two columns ys and vs, entry
// a's being [off[c][a], off[c][a+1]).
type deps struct {
	byY    [][]change
	off    [][]int32
	ys, vs [][]int32
}

// index builds the lookup columns of process c from its changes.
func (d *deps) index(c, n int) {
	off := make([]int32, n+1)
	for _, ch := range d.byY[c] {
		off[ch.a+1]++
	}
	for a := 0; a < n; a++ {
		off[a+1] += off[a]
	}
	ys, vs := make([]int32, len(d.byY[c])), make([]int32, len(d.byY[c]))
	fill := append([]int32(nil), off[:n]...)
	for _, ch := range d.byY[c] { // in y order: a stable counting sort by a
		ys[fill[ch.a]], vs[fill[ch.a]] = ch.y, ch.v
		fill[ch.a]++
	}
	d.off[c], d.ys[c], d.vs[c] = off, ys, vs
}

// known returns entry a of the dependency vector of C(c,y), a ≠ c: the
// latest interval of a that causally precedes it, or None.
func (d *deps) known(c, a, y int32) int32 {
	lo := d.off[c][a]
	// The last change of entry a at a checkpoint ≤ y.
	i, _ := slices.BinarySearch(d.ys[c][lo:d.off[c][a+1]], y+1)
	if i == 0 {
		return None
	}
	return d.vs[c][lo+int32(i)-1]
}

// vecPool holds dependency vectors shared copy-on-write between a process
// and the messages it sent while the vector did not change; refs counts
// the holders, so a vector returns to the free list when its last
// message is received.
type vecPool struct {
	vecs [][]int32
	refs []int32
	free []int32
}

func (vp *vecPool) alloc(n int) int32 {
	if k := len(vp.free); k > 0 {
		id := vp.free[k-1]
		vp.free = vp.free[:k-1]
		vp.refs[id] = 1
		return id
	}
	vp.vecs = append(vp.vecs, make([]int32, n))
	vp.refs = append(vp.refs, 1)
	return int32(len(vp.vecs) - 1)
}

func (vp *vecPool) release(id int32) {
	vp.refs[id]--
	if vp.refs[id] == 0 {
		vp.free = append(vp.free, id)
	}
}

// walker runs the pattern in a causal order, one process at a time as
// far as its next receipt's message has been sent.
type walker struct {
	pt     *pattern
	pool   vecPool
	cur    []int32 // per process: its vector's id
	msgVec []int32 // per message: the id of the vector it carries, or None
	wait   []int32 // per message: the process blocked on it, or None
	cursor []int   // per process: next op in pt.ops
	taken  []int32 // per process: checkpoints taken after the initial one
	// dirty[p] lists the entries p's current interval raised;
	// slot[p][a] is a's index in it, or None.
	dirty [][]change
	slot  [][]int32
	out   [][]change
}

// dependencies runs the first pass and returns the checkpoints' vectors,
// each process's final state included.
func (pt *pattern) dependencies() (*deps, error) {
	n := pt.n
	w := &walker{pt: pt, cur: make([]int32, n), msgVec: slices.Repeat([]int32{None}, len(pt.msgs)),
		wait: slices.Repeat([]int32{None}, len(pt.msgs)), cursor: make([]int, n), taken: make([]int32, n),
		dirty: make([][]change, n), slot: make([][]int32, n), out: make([][]change, n)}
	stack := make([]int32, 0, n)
	for p := range n {
		id := w.pool.alloc(n)
		vec := w.pool.vecs[id]
		w.slot[p] = make([]int32, n)
		for a := range vec {
			vec[a], w.slot[p][a] = None, None
		}
		vec[p] = 0
		w.cur[p] = id
		stack = append(stack, int32(n-1-p))
	}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = w.advance(p, stack[:len(stack)-1])
	}
	d := &deps{byY: w.out, off: make([][]int32, n), ys: make([][]int32, n), vs: make([][]int32, n)}
	for p := range n {
		if w.cursor[p] < len(pt.ops[p]) {
			o := pt.ops[p][w.cursor[p]]
			return nil, fmt.Errorf("rdt: process %d: op %d receives message %d, whose send depends on that receipt (causal cycle)", p, o.op, o.msg)
		}
		d.index(p, n)
	}
	return d, nil
}

// advance runs p until it ends or meets a receipt whose message is not
// sent yet, pushing onto stack the processes its sends unblock.
func (w *walker) advance(p int32, stack []int32) []int32 {
	ops := w.pt.ops[p]
	for w.cursor[p] < len(ops) {
		o := ops[w.cursor[p]]
		w.checkpoints(p, o.op)
		if o.recv {
			v := w.msgVec[o.msg]
			if v == None {
				w.wait[o.msg] = p
				return stack
			}
			w.merge(p, v, o)
			w.pool.release(v)
		} else {
			w.msgVec[o.msg] = w.cur[p]
			w.pool.refs[w.cur[p]]++
			if q := w.wait[o.msg]; q != None {
				w.wait[o.msg] = None
				stack = append(stack, q)
			}
		}
		w.cursor[p]++
	}
	w.checkpoints(p, -1)
	w.close(p, w.taken[p]+1) // the final state
	return stack
}

// checkpoints takes p's checkpoints at positions ≤ op (all remaining
// ones when op < 0).
func (w *walker) checkpoints(p, op int32) {
	cs := w.pt.ckpts[p]
	for int(w.taken[p]) < len(cs) && (op < 0 || cs[w.taken[p]] <= op) {
		w.taken[p]++
		w.close(p, w.taken[p])
		w.own(p)[p] = w.taken[p]
	}
}

// close records the entries p's current interval raised as changes of
// checkpoint y, which ends the interval.
func (w *walker) close(p, y int32) {
	vec := w.pool.vecs[w.cur[p]]
	for _, c := range w.dirty[p] {
		c.y, c.v = y, vec[c.a]
		w.out[p] = append(w.out[p], c)
		w.slot[p][c.a] = None
	}
	w.dirty[p] = w.dirty[p][:0]
}

// own returns p's vector for writing, copying it first if messages share
// it.
func (w *walker) own(p int32) []int32 {
	id := w.cur[p]
	if w.pool.refs[id] > 1 {
		nid := w.pool.alloc(len(w.pool.vecs[id]))
		copy(w.pool.vecs[nid], w.pool.vecs[id])
		w.pool.release(id)
		w.cur[p], id = nid, nid
	}
	return w.pool.vecs[id]
}

// merge takes the entry-wise maximum of p's vector and vector v, carried
// by the receipt o.
func (w *walker) merge(p, v int32, o opRef) {
	for a, x := range w.pool.vecs[v] {
		if int32(a) == p || x <= w.pool.vecs[w.cur[p]][a] {
			continue
		}
		w.own(p)[a] = x
		if s := w.slot[p][a]; s != None {
			w.dirty[p][s].at, w.dirty[p][s].m = o.op, o.msg
			continue
		}
		w.slot[p][a] = int32(len(w.dirty[p]))
		w.dirty[p] = append(w.dirty[p], change{a: int32(a), at: o.op, m: o.msg})
	}
}
