package trace

import (
	"math/rand/v2"
	"testing"
)

// TestMergeIsLessMax: Merge takes, per entry, the greater under Less,
// negative fields included.
func TestMergeIsLessMax(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pick := func() int32 { return []int32{-1 << 31, -2, -1, 0, 1, 2, 1<<31 - 1}[r.IntN(7)] }
	for range 200 {
		a, b := make(VT, 20), make(VT, 20+r.IntN(3)-1)
		for i := range a {
			a[i] = VTEntry{pick(), pick()}
		}
		for i := range b {
			b[i] = VTEntry{pick(), pick()}
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
