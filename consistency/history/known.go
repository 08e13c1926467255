package history

import (
	"slices"

	"github.com/ckpt-dev/ckpt/trace"
)

// knownIndex indexes a process's PK announcements, recorded in order (an
// append-only list), for orphan tests against the whole list or any
// prefix of it. Orphan scans the list: with thousands of failures every
// test at every restore and undone receipt cost thousands of steps. The
// index looks up only the incarnations of the origins a vector entry
// could be an orphan of.
type knownIndex struct {
	origins  []int32 // with announcements, in order of first record
	byOrigin map[int32]*originAnns
	// odd are the announcements the buckets cannot hold (a negative or
	// out-of-range incarnation, which only a malformed run has), scanned.
	odd []annAt
	n   int32 // announcements recorded
	// at are the seqs of the events that recorded them, in order
	// (KnownBefore); unknownFrom is the seq of the first token that came
	// without a body, from which on what the process recorded is
	// unknown, or None.
	at          []int32
	unknownFrom int32
}

// unknown reports whether a token without a body has come.
func (x *knownIndex) unknown() bool { return x.unknownFrom != None }

// originAnns are one origin's announcements, by incarnation: the first
// recorded for each (idx None where there is none), and the later ones
// for an incarnation already recorded (a process records its own
// announcement at its restart and again when its token returns), chained
// from it through next.
type originAnns struct {
	byInc []annAt
	again []annAt
	// minK[y] is the least k recorded for any incarnation ≥ y, or None:
	// it only ever decreases, so the final value rules out matches for
	// every earlier prefix too.
	minK []int32
}

// annAt is an announcement and its index in the process's list; next
// is the index in again of the next one of the same incarnation, or None.
type annAt struct {
	a         Announcement
	idx, next int32
}

// add records the next announcement of the list, recorded by event seq.
// maxInc bounds the incarnations kept in buckets.
func (x *knownIndex) add(a Announcement, seq, maxInc int32) {
	at := annAt{a: a, idx: x.n, next: None}
	x.n++
	x.at = append(x.at, seq)
	if a.Inc < 0 || a.Inc > maxInc {
		x.odd = append(x.odd, at)
		return
	}
	o := x.byOrigin[a.Origin]
	if o == nil {
		o = &originAnns{}
		if x.byOrigin == nil {
			x.byOrigin = map[int32]*originAnns{}
		}
		x.byOrigin[a.Origin] = o
		x.origins = append(x.origins, a.Origin)
	}
	for int32(len(o.byInc)) <= a.Inc {
		o.byInc = append(o.byInc, annAt{idx: None, next: None})
		o.minK = append(o.minK, None)
	}
	if first := &o.byInc[a.Inc]; first.idx == None {
		*first = at
	} else {
		// Appended at the head of the chain after the first: order does
		// not matter, the least index wins.
		at.next, first.next = first.next, int32(len(o.again))
		o.again = append(o.again, at)
	}
	for y := a.Inc; y >= 0; y-- {
		if o.minK[y] != None && o.minK[y] <= a.K {
			break
		}
		o.minK[y] = a.K
	}
}

// orphan is Orphan(vt, list[:limit]): whether vt is an orphan of one of
// the first limit announcements, and of the first such in list order.
func (x *knownIndex) orphan(vt trace.VT, limit int32) (bool, Announcement) {
	best := limit
	var out Announcement
	consider := func(at annAt) {
		if at.idx < best && at.a.Origin >= 0 && int(at.a.Origin) < len(vt) {
			if e := vt[at.a.Origin]; e.Inc <= at.a.Inc && e.Count > at.a.K {
				best, out = at.idx, at.a
			}
		}
	}
	for _, origin := range x.origins {
		if origin < 0 || int(origin) >= len(vt) {
			continue
		}
		e := vt[origin]
		o := x.byOrigin[origin]
		for y := max(e.Inc, 0); int(y) < len(o.byInc); y++ {
			if k := o.minK[y]; k == None || e.Count <= k {
				break // no announcement of incarnation ≥ y makes e an orphan
			}
			if at := o.byInc[y]; at.idx != None {
				consider(at)
				for n := at.next; n != None; n = o.again[n].next {
					consider(o.again[n])
				}
			}
		}
	}
	for _, at := range x.odd {
		consider(at)
	}
	return best < limit, out
}

// KnownOrphan is Orphan(vt, r.Known) for restore r of process p: whether
// vt is an orphan of an announcement p had recorded then, and of the
// first such in the order recorded.
func (m *Model) KnownOrphan(p int32, r *Restore, vt trace.VT) (bool, Announcement) {
	if p < 0 || int(p) >= len(m.Procs) || len(r.Known) == 0 {
		return false, Announcement{}
	}
	return m.Procs[p].known.orphan(vt, int32(len(r.Known)))
}

// KnownOrphanAt is Orphan(vt, list[:n]) for the first n announcements
// process p recorded: for a judgement between restores (a discard),
// with n from KnownBefore.
func (m *Model) KnownOrphanAt(p, n int32, vt trace.VT) (bool, Announcement) {
	if p < 0 || int(p) >= len(m.Procs) || n <= 0 {
		return false, Announcement{}
	}
	return m.Procs[p].known.orphan(vt, n)
}

// KnownBefore returns how many PK announcements process p had recorded
// before event seq (its own restarts', and those of the tokens it
// received), for KnownOrphanAt; ok is false when a token without a body
// reached p before seq, so that what it had recorded is unknown.
func (m *Model) KnownBefore(p, seq int32) (n int32, ok bool) {
	if p < 0 || int(p) >= len(m.Procs) {
		return 0, false
	}
	x := &m.Procs[p].known
	if x.unknownFrom != None && x.unknownFrom < seq {
		return 0, false
	}
	k, _ := slices.BinarySearch(x.at, seq)
	return int32(k), true
}
