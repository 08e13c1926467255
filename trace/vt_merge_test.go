package trace

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMergeIsLessMax: Merge takes, per entry, the greater under Less,
// over the whole range of a field (never negative: VT.Merge).
func TestMergeIsLessMax(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pick := func() int32 { return []int32{0, 1, 2, 1 << 31 / 2, 1<<31 - 2, 1<<31 - 1}[r.IntN(6)] }
	for range 200 {
		a, b := make(VT, 20), make(VT, 20+r.IntN(3)-1)
		for i := range a {
			a[i] = VTEntry{Inc: pick(), Count: pick()}
		}
		for i := range b {
			b[i] = VTEntry{Inc: pick(), Count: pick()}
		}
		got := append(VT(nil), a...)
		got.Merge(b)
		for i := range a {
			want := a[i]
			if i < len(b) && want.Less(b[i]) {
				want = b[i]
			}
			if got[i] != want {
				t.Fatalf("entry %d: max of %v and %v is %v, Merge says %v", i, a[i], b[i], want, got[i])
			}
		}
	}
}

// TestIsMaxOfIsMerge: IsMaxOf says what comparing v with base merged
// with each of vs (padded or cut to v's length, entry skip set to v's)
// would, across block boundaries, short vectors and no vs at all.
func TestIsMaxOfIsMerge(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	vec := func(n int) VT {
		v := make(VT, n)
		for i := range v {
			v[i] = VTEntry{Inc: int32(r.IntN(3)), Count: int32(r.IntN(4))}
		}
		return v
	}
	for range 400 {
		n := []int{0, 1, 7, vtBlock, vtBlock + 3, 2*vtBlock + 1}[r.IntN(6)]
		base, vs := vec(max(n+r.IntN(3)-1, 0)), make([]VT, r.IntN(4))
		for i := range vs {
			vs[i] = vec(max(n+r.IntN(3)-1, 0))
		}
		want := make(VT, n)
		copy(want, base)
		for _, o := range vs {
			want.Merge(o)
		}
		skip := r.IntN(n + 1)
		v := append(VT(nil), want...)
		if r.IntN(2) == 0 && n > 0 {
			i := r.IntN(n)
			v[i].Count++
		}
		if skip < n && r.IntN(2) == 0 {
			v[skip].Inc += 5
		}
		vv := append(VT(nil), v...)
		if skip < n {
			vv[skip] = want[skip]
		}
		if got := v.IsMaxOf(base, vs, skip); got != slices.Equal(vv, want) {
			t.Fatalf("n %d, %d vs, skip %d: IsMaxOf says %v", n, len(vs), skip, got)
		}
	}
}
