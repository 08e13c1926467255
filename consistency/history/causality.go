package history

import (
	"slices"

	"github.com/ckpt-dev/ckpt/trace"
)

// BatchSize is the size of the failure groups rules report their
// violations in: all the failures of one group (index / BatchSize), then
// the next. The dependence covers every failure at once; the groups only
// keep the order in which the checker has always listed witnesses.
const BatchSize = 64

// Dependence is the model's happened-before, closed over the undone sets
// of every failure. For every app op (indexed by seq) it holds three sets
// of failure indexes:
//
//   - U: the failures f it depends on an event undone for (U_f: what f's
//     restart and the rollbacks attributed to f undid) — it is, or
//     follows, an orphan of f;
//   - L: the failures whose process lost an event it depends on at its
//     restart (L_f);
//   - Orph: the failures f of which the state right after it holds a
//     receipt of an orphan.
//
// Happened-before is program order plus send → receive of the copy a
// receive consumed (a resend counts as the send it repeats). The run is
// in time order and both predecessors of an op come earlier, so one
// forward pass computes it. The sets are interned and shared along the
// chains that do not change them: an op depends on the failures its
// predecessors depend on, plus its own; in a correct run most sets are
// empty and the rest tiny, so the pass is linear in events whatever the
// number of failures (it was one pass per 64 failures).
type Dependence struct {
	// of holds, per event, an index into triples: its (U, L, Orph) set
	// ids, interned, so that an event costs 4 bytes (triple 0, three
	// empty sets, is most events').
	of      []int32
	triples []triple
	index   map[triple]int32 // while building
	sets    setPool
}

// triple is an event's U, L and Orph set ids.
type triple struct{ u, l, orph int32 }

// U reports whether event s depends on an event undone for failure fi.
func (d *Dependence) U(s, fi int32) bool { return d.sets.has(d.triples[d.of[s]].u, fi) }

// L reports whether event s depends on an event failure fi's process
// lost at its restart.
func (d *Dependence) L(s, fi int32) bool { return d.sets.has(d.triples[d.of[s]].l, fi) }

// Orph reports whether the state right after event s holds a receipt of
// an orphan of failure fi.
func (d *Dependence) Orph(s, fi int32) bool { return d.sets.has(d.triples[d.of[s]].orph, fi) }

// UFailures returns the failures event s depends on an undone event of,
// in increasing index order. The slice is the dependence's: read only.
func (d *Dependence) UFailures(s int32) []int32 { return d.sets.get(d.triples[d.of[s]].u) }

// set records event s's triple.
func (d *Dependence) set(s int32, t triple) {
	if t == (triple{}) {
		return
	}
	k, ok := d.index[t]
	if !ok {
		k = int32(len(d.triples))
		d.triples = append(d.triples, t)
		d.index[t] = k
	}
	d.of[s] = k
}

// Dependence returns the happened-before closed over every failure's
// undone set, computed once at Finish; nil when the run has no failures
// or lacks the op or copy numbers it needs.
func (m *Model) Dependence() *Dependence { return m.dep }

func (m *Model) dependence() *Dependence {
	n := len(m.Run.Events)
	d := &Dependence{of: make([]int32, n), triples: []triple{{}}, index: map[triple]int32{}}
	d.sets.init(len(m.Failures))
	// Every set is empty before the first undone event (the others get
	// theirs from earlier ones): the sweep starts there, past the
	// failure-free prefix explore's schedules share.
	first := slices.IndexFunc(m.UndoneBy, func(by int32) bool { return by >= 0 })
	for i := max(first, 0); first >= 0 && i < n; i++ {
		e := &m.Run.Events[i]
		if !isApp(e) || e.Op == None {
			continue
		}
		var u, l, o int32
		if fi, lost := m.OwnFailure(int32(i)); fi != None {
			u = d.sets.single(fi)
			if lost {
				l = u
			}
		}
		if p := m.Pred[i]; p != None {
			t := d.triples[d.of[p]]
			u = d.sets.union(u, t.u)
			l = d.sets.union(l, t.l)
			o = t.orph
		}
		if e.Kind == trace.Recv {
			if s := m.SendOf[i]; s != None {
				t := d.triples[d.of[s]]
				u = d.sets.union(u, t.u)
				l = d.sets.union(l, t.l)
				o = d.sets.union(o, t.u)
			}
		}
		d.set(int32(i), triple{u, l, o})
	}
	d.sets.done()
	d.index = nil
	return d
}

// OwnFailure returns the failure whose restart or rollback undid event s
// itself, or None; lost says it was that failure's own restart (s is in
// L_f as well as U_f).
func (m *Model) OwnFailure(s int32) (fi int32, lost bool) {
	by := m.UndoneBy[s]
	if by < 0 {
		return None, false
	}
	fi = m.FailOf(by)
	if fi < 0 {
		return None, false
	}
	return fi, m.Run.Events[by].Kind == trace.Restart
}

// setPool interns sorted sets of failure indexes. Set 0 is the empty
// set; set k > 0 is elems[off[k-1]:off[k]].
type setPool struct {
	elems   []int32
	off     []int32
	singles []int32            // per failure, its singleton's id, or 0
	unions  map[[2]int32]int32 // memo of unions of two different non-empty sets
}

func (sp *setPool) init(nf int) {
	sp.off = []int32{0}
	sp.singles = make([]int32, nf)
}

// done drops what only building needed.
func (sp *setPool) done() { sp.singles, sp.unions = nil, nil }

func (sp *setPool) get(id int32) []int32 {
	if id == 0 {
		return nil
	}
	return sp.elems[sp.off[id-1]:sp.off[id]]
}

func (sp *setPool) has(id, fi int32) bool {
	if id == 0 {
		return false
	}
	_, ok := slices.BinarySearch(sp.get(id), fi)
	return ok
}

func (sp *setPool) add(set []int32) int32 {
	sp.elems = append(sp.elems, set...)
	sp.off = append(sp.off, int32(len(sp.elems)))
	return int32(len(sp.off) - 1)
}

// single returns the singleton {fi}.
func (sp *setPool) single(fi int32) int32 {
	if sp.singles[fi] == 0 {
		sp.singles[fi] = sp.add([]int32{fi})
	}
	return sp.singles[fi]
}

// union returns the union of sets a and b, one of them when it holds the
// other.
func (sp *setPool) union(a, b int32) int32 {
	switch {
	case b == 0 || a == b:
		return a
	case a == 0:
		return b
	}
	key := [2]int32{min(a, b), max(a, b)}
	if u, ok := sp.unions[key]; ok {
		return u
	}
	x, y := sp.get(a), sp.get(b)
	merged := slices.Concat(x, y)
	slices.Sort(merged)
	merged = slices.Compact(merged)
	u := a
	switch len(merged) {
	case len(x):
	case len(y):
		u = b
	default:
		u = sp.add(merged)
	}
	put(&sp.unions, key, u)
	return u
}
