package explore

// The equivalence reduction (docs/explore.md, "Equivalence"). A schedule
// is a set of failure points. Its first failure in trace order may be
// moved within its quiet stretch without changing any verdict, provided
// every other failure of the schedule — injected or the trace's own —
// comes after the stretch's last point:
//
//   - until the stretch's last point the schedules run failure-free but
//     for this one crash, so by SPEC §3's failure-free identity every
//     process does exactly what the trace says; the crashed process was
//     doing only internal ops there, which nobody else sees, and no
//     control message exists yet that it could have handled;
//   - no tick, flush, send or receive of the process lies in the stretch,
//     so its stable state at the crash (checkpoints, logs, MS `next`, PK
//     stable log) is the same wherever it crashed;
//   - Down is pinned to the stretch's end, so it restarts at the same
//     instant with the same stable state and the same pending control
//     messages, and from there on the schedules are identical.
//
// Only what the crash destroyed differs: the internal ops between the
// point and the stretch's end, which no message depends on. Later
// failures are never moved: once a recovery runs, a process's trace time
// no longer tells what it is doing.

// canonical reports whether the schedule pts (global point indexes,
// ascending) is the one explored for its class, and the class's size.
// A schedule whose first failure can move to its stretch's end, and is
// not already there, is not canonical: its class is explored through the
// schedule with the failure at the end.
func (b *base) canonical(pts []int32) (ok bool, size int64) {
	if len(pts) == 0 || !b.movable(pts) {
		return true, 1
	}
	first := &b.points[pts[0]]
	return first.Dist == 0, int64(first.Size)
}

// movable reports whether the first failure of pts may move within its
// stretch: nothing else fails before the stretch's last point.
func (b *base) movable(pts []int32) bool {
	end := b.points[pts[0]].End
	if b.firstFail < b.points[end].Gap {
		return false
	}
	return len(pts) == 1 || pts[1] > end
}

// canonicalize moves the first failure of pts to its stretch's end when
// it may, in place, and returns the class size.
func (b *base) canonicalize(pts []int32) int64 {
	if len(pts) == 0 || !b.movable(pts) {
		return 1
	}
	pts[0] = b.points[pts[0]].End
	return int64(b.points[pts[0]].Size)
}
