// Package pk implements the Peterson–Kearns rollback algorithm based on
// vector time (SPEC §5): uncoordinated checkpoints, an optimistic message
// log made stable at flushes, vector time with (incarnation, count)
// entries, and recovery by a token that circulates on the ring of
// processes carrying the failed incarnation's announcement.
//
// The package is a pure state machine: the replay engine feeds it the
// program's events and applies the effects it returns.
package pk

import (
	"slices"

	"github.com/ckpt-dev/ckpt/trace"
)

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
// has c > k. Only the processes it has announcements of take room (and
// time: a test looks at their entries only), so a process of a large
// system does not pay for every other one.
type Known struct {
	n int32
	// origins are the processes with a known announcement, increasing;
	// k and min run parallel to it.
	origins []int32
	// k[i][inc] is the k announced for incarnation inc of origins[i], or
	// None.
	k [][]int32
	// min[i][y] is the least k[i][x] over x ≥ y, or None if there is none.
	min [][]int32
}

// NewKnown returns an empty set for n processes.
func NewKnown(n int) *Known {
	return &Known{n: int32(n)}
}

// Add records a, reporting false if it was already known. An incarnation
// ends once, so a second announcement of the same incarnation is ignored.
func (s *Known) Add(a Announcement) bool {
	if a.P < 0 || a.P >= s.n || a.Inc < 0 {
		return false
	}
	i, ok := slices.BinarySearch(s.origins, a.P)
	if !ok {
		s.origins = slices.Insert(s.origins, i, a.P)
		s.k = slices.Insert(s.k, i, nil)
		s.min = slices.Insert(s.min, i, nil)
	}
	ks := s.k[i]
	for int32(len(ks)) <= a.Inc {
		ks = append(ks, trace.None)
	}
	if ks[a.Inc] != trace.None {
		return false
	}
	ks[a.Inc] = a.K
	s.k[i] = ks
	mins := s.min[i]
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
	s.min[i] = mins
	return true
}

// Knows reports whether the end of incarnation inc of p is known.
func (s *Known) Knows(p, inc int32) bool {
	i, ok := slices.BinarySearch(s.origins, p)
	if !ok || inc < 0 || int(inc) >= len(s.k[i]) {
		return false
	}
	return s.k[i][inc] != trace.None
}

func (s *Known) orphanAt(i int, e trace.VTEntry) bool {
	mins := s.min[i]
	if e.Inc < 0 || int(e.Inc) >= len(mins) {
		return false
	}
	m := mins[e.Inc]
	return m != trace.None && e.Count > m
}

// Orphan reports whether a state, event or message with vector v is an
// orphan of a known announcement.
func (s *Known) Orphan(v trace.VT) bool {
	for i, p := range s.origins {
		if int(p) < len(v) && s.orphanAt(i, v[p]) {
			return true
		}
	}
	return false
}

// MissingAmong returns the first process among (increasing) whose entry
// in v names an incarnation x ≥ 1 while the end of its incarnation x − 1
// is unknown, with x − 1; a copy carrying such a vector must be held
// (SPEC §5). ok is false when nothing is missing. among lists the
// processes that can name an incarnation above 0: those that have
// restarted, as every vector time of a run has.
func (s *Known) MissingAmong(v trace.VT, among []int32) (p, inc int32, ok bool) {
	for _, q := range among {
		if int(q) < len(v) {
			if e := v[q]; e.Inc >= 1 && !s.Knows(q, e.Inc-1) {
				return q, e.Inc - 1, true
			}
		}
	}
	return trace.None, trace.None, false
}

// OrphanWhy is Orphan that also names an announcement making v an orphan:
// for the first orphan entry, the earliest incarnation whose end explains
// it. Used to attribute a discard to the failure that caused it.
func (s *Known) OrphanWhy(v trace.VT) (p, inc int32, ok bool) {
	for i, q := range s.origins {
		if int(q) >= len(v) || !s.orphanAt(i, v[q]) {
			continue
		}
		e := v[q]
		for x := int(e.Inc); x < len(s.k[i]); x++ {
			if k := s.k[i][x]; k != trace.None && e.Count > k {
				return q, int32(x), true
			}
		}
	}
	return trace.None, trace.None, false
}
