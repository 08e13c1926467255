// Package pk implements the Peterson–Kearns rollback algorithm based on
// vector time (SPEC §5): uncoordinated checkpoints, an optimistic message
// log made stable at flushes, vector time with (incarnation, count)
// entries, and recovery by a token that circulates on the ring of
// processes carrying the failed incarnation's announcement.
//
// The package is a pure state machine: the replay engine feeds it the
// program's events and applies the effects it returns.
package pk

import "github.com/ckpt-dev/ckpt/trace"

// Merge sets dst to the entry-wise lexicographic maximum of dst and src.
// It is the only vector work done at a receipt, O(processes).
func Merge(dst, src trace.VT) {
	for i, e := range src {
		if i < len(dst) && dst[i].Less(e) {
			dst[i] = e
		}
	}
}

// Announcement is the failure information of SPEC §5: incarnation Inc of
// process P ended at position K, so its events beyond K are lost.
type Announcement struct {
	P   int32
	Inc int32
	K   int32
}

// Known is the set of announcements one process has recorded on stable
// storage. Orphan tests are O(1) per vector entry: for each process it
// keeps, per incarnation y, the least k announced for any incarnation
// ≥ y, since an entry (y, c) is an orphan iff some known (inc ≥ y, k)
// has c > k.
type Known struct {
	// k[p][inc] is the k announced for incarnation inc of p, or None.
	k [][]int32
	// min[p][y] is the least k[p][x] over x ≥ y, or None if there is none.
	min [][]int32
}

// NewKnown returns an empty set for n processes.
func NewKnown(n int) *Known {
	return &Known{k: make([][]int32, n), min: make([][]int32, n)}
}

// Add records a, reporting false if it was already known. An incarnation
// ends once, so a second announcement of the same incarnation is ignored.
func (s *Known) Add(a Announcement) bool {
	if a.P < 0 || int(a.P) >= len(s.k) || a.Inc < 0 {
		return false
	}
	ks := s.k[a.P]
	for int32(len(ks)) <= a.Inc {
		ks = append(ks, trace.None)
	}
	if ks[a.Inc] != trace.None {
		return false
	}
	ks[a.Inc] = a.K
	s.k[a.P] = ks
	mins := s.min[a.P]
	for len(mins) < len(ks) {
		mins = append(mins, trace.None)
	}
	for y := int(a.Inc); y >= 0; y-- {
		if mins[y] == trace.None || a.K < mins[y] {
			mins[y] = a.K
		} else if y < int(a.Inc) {
			// Entries below already had a smaller bound and it only
			// shrinks towards lower incarnations.
			break
		}
	}
	s.min[a.P] = mins
	return true
}

// Knows reports whether the end of incarnation inc of p is known.
func (s *Known) Knows(p, inc int32) bool {
	if p < 0 || int(p) >= len(s.k) || inc < 0 || int(inc) >= len(s.k[p]) {
		return false
	}
	return s.k[p][inc] != trace.None
}

// OrphanEntry reports whether entry e of process p is an orphan of a
// known announcement: some (p, inc, k) with e.Inc ≤ inc and e.Count > k.
func (s *Known) OrphanEntry(p int32, e trace.VTEntry) bool {
	mins := s.min[p]
	if e.Inc < 0 || int(e.Inc) >= len(mins) {
		return false
	}
	m := mins[e.Inc]
	return m != trace.None && e.Count > m
}

// Orphan reports whether a state, event or message with vector v is an
// orphan of a known announcement.
func (s *Known) Orphan(v trace.VT) bool {
	for p, e := range v {
		if p < len(s.min) && s.OrphanEntry(int32(p), e) {
			return true
		}
	}
	return false
}

// OrphanOf reports whether v is an orphan of the one announcement a.
func OrphanOf(v trace.VT, a Announcement) bool {
	if a.P < 0 || int(a.P) >= len(v) {
		return false
	}
	return orphanEntryOf(v[a.P], a)
}

func orphanEntryOf(e trace.VTEntry, a Announcement) bool {
	return e.Inc <= a.Inc && e.Count > a.K
}

// Missing returns the first process whose entry in v names an incarnation
// x ≥ 1 while the end of its incarnation x − 1 is unknown, with x − 1; a
// copy carrying such a vector must be held (SPEC §5). ok is false when
// nothing is missing.
func (s *Known) Missing(v trace.VT) (p, inc int32, ok bool) {
	for i, e := range v {
		if e.Inc >= 1 && !s.Knows(int32(i), e.Inc-1) {
			return int32(i), e.Inc - 1, true
		}
	}
	return trace.None, trace.None, false
}

// OrphanWhy is Orphan that also names an announcement making v an orphan:
// for the first orphan entry, the earliest incarnation whose end explains
// it. Used to attribute a discard to the failure that caused it.
func (s *Known) OrphanWhy(v trace.VT) (p, inc int32, ok bool) {
	for q, e := range v {
		if q >= len(s.min) || !s.OrphanEntry(int32(q), e) {
			continue
		}
		for x := int(e.Inc); x < len(s.k[q]); x++ {
			if k := s.k[q][x]; k != trace.None && e.Count > k {
				return int32(q), int32(x), true
			}
		}
	}
	return trace.None, trace.None, false
}
