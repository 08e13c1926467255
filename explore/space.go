package explore

import "math/big"

// The failure space of one base trace: every set of at most K failure
// points, ordered by size and then lexicographically by global point
// index (so the earliest failures come first). The recorded trace itself
// is the empty set, schedule 0.

// spaceSize returns how many schedules the failure space of b holds
// (full) and how many classes the reduction leaves of them. Without
// reduce, classes equals full.
func (b *base) spaceSize(k int, reduce bool) (full, classes *big.Int) {
	n := int64(len(b.points))
	full = upTo(n, k)[k]
	classes = new(big.Int).Set(full)
	if !reduce || k == 0 {
		return full, classes
	}
	// A schedule is merged when its first failure is a point of a
	// stretch other than its end and every other failure comes after
	// that end: (Size-1) first points times every way to choose the
	// others among the points after the end.
	merged := new(big.Int)
	for e := range b.points {
		pt := &b.points[e]
		if pt.Dist != 0 || pt.Size < 2 || b.firstFail < pt.Gap {
			continue
		}
		ways := upTo(n-1-int64(e), k-1)[k-1]
		merged.Add(merged, ways.Mul(ways, big.NewInt(int64(pt.Size-1))))
	}
	return full, classes.Sub(classes, merged)
}

// upTo returns, for i = 0..k, how many sets of at most i of n points
// there are: the sum of C(n, j) for j ≤ i.
func upTo(n int64, k int) []*big.Int {
	cum := make([]*big.Int, k+1)
	acc := new(big.Int)
	for i := range cum {
		if int64(i) <= n {
			acc.Add(acc, new(big.Int).Binomial(n, int64(i)))
		}
		cum[i] = new(big.Int).Set(acc)
	}
	return cum
}

// each calls yield for every schedule of b's failure space, in order,
// that the exploration runs: with reduce, only canonical ones (with their
// class sizes). It stops early when yield returns false, and reports
// whether it ran to the end.
func (b *base) each(k int, reduce bool, yield func(pts []int32, size int64) bool) bool {
	if !yield(nil, 1) {
		return false
	}
	n := int32(len(b.points))
	c := make([]int32, k)
	for size := 1; size <= k && int32(size) <= n; size++ {
		s := c[:size]
		for i := range s {
			s[i] = int32(i)
		}
		for {
			ok, cls := true, int64(1)
			if reduce {
				ok, cls = b.canonical(s)
			}
			if ok {
				if !yield(s, cls) {
					return false
				}
			} else if size > 1 {
				// Every later schedule with this first failure keeps its
				// others after the stretch: skip to the next first one.
				if !bump(s, 0, n) {
					break
				}
				continue
			}
			if !nextComb(s, n) {
				break
			}
		}
	}
	return true
}

// nextComb advances s to the next combination of len(s) of 0..n-1 in
// lexicographic order, or reports that s was the last.
func nextComb(s []int32, n int32) bool {
	i := len(s) - 1
	for i >= 0 && s[i] == n-int32(len(s)-i) {
		i--
	}
	return i >= 0 && bump(s, i, n)
}

// bump advances s[i] and makes the elements after it follow it: the first
// combination after s's prefix s[:i+1]. It reports false, leaving s as
// it is, when there is none.
func bump(s []int32, i int, n int32) bool {
	if s[i]+1 > n-int32(len(s)-i) {
		return false
	}
	s[i]++
	for j := i + 1; j < len(s); j++ {
		s[j] = s[j-1] + 1
	}
	return true
}
