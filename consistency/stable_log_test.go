package consistency

import (
	"slices"
	"testing"
)

// A PK stable log cut by a rollback and grown again holds no entry of
// before the cut: replay must not find a receipt logged in the undone
// history stable in the new one.
func TestSetEntryAfterCut(t *testing.T) {
	room := make([]int32, 8)
	cases := []struct {
		name  string
		steps func(log []int32) []int32
		want  []int32
	}{
		{"grow", func(l []int32) []int32 { return setEntry(setEntry(l, 1, 5), 3, 7) }, []int32{0, 5, 0, 7}},
		{"overwrite", func(l []int32) []int32 { return setEntry(setEntry(l, 2, 5), 2, 6) }, []int32{0, 0, 6}},
		{"cut and grow", func(l []int32) []int32 {
			l = setEntry(setEntry(setEntry(l, 1, 4), 2, 5), 3, 6)
			return setEntry(l[:1], 4, 9) // a rollback to pos 1, then op 4 logged
		}, []int32{0, 0, 0, 0, 9}},
	}
	for _, c := range cases {
		clear(room)
		if got := c.steps(room[:0]); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
