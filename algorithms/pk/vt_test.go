package pk

import (
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
)

func vt(e ...int32) trace.VT {
	v := make(trace.VT, len(e)/2)
	for i := range v {
		v[i] = trace.VTEntry{Inc: e[2*i], Count: e[2*i+1]}
	}
	return v
}

func TestMerge(t *testing.T) {
	tests := []struct {
		name          string
		dst, src, out trace.VT
	}{
		{"count", vt(0, 1, 0, 5), vt(0, 3, 0, 2), vt(0, 3, 0, 5)},
		{"incarnation beats count", vt(0, 9, 0, 0), vt(1, 2, 0, 0), vt(1, 2, 0, 0)},
		{"older incarnation loses", vt(2, 1, 0, 0), vt(1, 7, 0, 0), vt(2, 1, 0, 0)},
		{"equal", vt(1, 1, 1, 1), vt(1, 1, 1, 1), vt(1, 1, 1, 1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := append(trace.VT(nil), tc.dst...)
			d.Merge(tc.src)
			for i := range d {
				if d[i] != tc.out[i] {
					t.Fatalf("Merge = %v, want %v", d, tc.out)
				}
			}
		})
	}
}

func TestOrphanPredicate(t *testing.T) {
	tests := []struct {
		name   string
		anns   []Announcement
		v      trace.VT
		orphan bool
		p, inc int32
	}{
		{"no announcement", nil, vt(0, 5, 0, 5), false, -1, -1},
		{"beyond k", []Announcement{{0, 0, 3}}, vt(0, 4, 0, 0), true, 0, 0},
		{"at k", []Announcement{{0, 0, 3}}, vt(0, 3, 0, 0), false, -1, -1},
		{"later incarnation", []Announcement{{0, 0, 3}}, vt(1, 9, 0, 0), false, -1, -1},
		{"earlier incarnation undone by later failure", []Announcement{{0, 0, 8}, {0, 1, 4}}, vt(0, 6, 0, 0), true, 0, 1},
		{"earlier incarnation kept", []Announcement{{0, 0, 8}, {0, 1, 4}}, vt(0, 4, 0, 0), false, -1, -1},
		{"other process", []Announcement{{1, 0, 2}}, vt(0, 9, 0, 3), true, 1, 0},
		{"learned out of order", []Announcement{{1, 1, 5}, {1, 0, 2}}, vt(0, 0, 1, 6), true, 1, 1},
		{"out of order, older bound", []Announcement{{1, 1, 5}, {1, 0, 2}}, vt(0, 0, 0, 3), true, 1, 0},
		{"duplicate ignored", []Announcement{{1, 0, 2}, {1, 0, 9}}, vt(0, 0, 0, 3), true, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := NewKnown(2)
			for _, a := range tc.anns {
				s.Add(a)
			}
			if got := s.Orphan(tc.v); got != tc.orphan {
				t.Fatalf("Orphan(%v) = %v, want %v", tc.v, got, tc.orphan)
			}
			p, inc, ok := s.OrphanWhy(tc.v)
			if ok != tc.orphan || p != tc.p || inc != tc.inc {
				t.Fatalf("OrphanWhy = %d %d %v, want %d %d %v", p, inc, ok, tc.p, tc.inc, tc.orphan)
			}
			for _, a := range tc.anns {
				// The definition, for the one announcement a.
				if int(a.P) < len(tc.v) && tc.v[a.P].Inc <= a.Inc && tc.v[a.P].Count > a.K && !tc.orphan {
					t.Fatalf("an orphan of %v but not Orphan(%v)", a, tc.v)
				}
			}
		})
	}
}

func TestMissing(t *testing.T) {
	tests := []struct {
		name   string
		anns   []Announcement
		v      trace.VT
		p, inc int32
		ok     bool
	}{
		{"incarnation 0 needs nothing", nil, vt(0, 5, 0, 1), -1, -1, false},
		{"incarnation 1 unknown end of 0", nil, vt(0, 5, 1, 1), 1, 0, true},
		{"known", []Announcement{{1, 0, 1}}, vt(0, 5, 1, 1), -1, -1, false},
		{"needs the one just before", []Announcement{{1, 0, 1}}, vt(0, 5, 2, 1), 1, 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := NewKnown(2)
			for _, a := range tc.anns {
				s.Add(a)
			}
			p, inc, ok := s.MissingAmong(tc.v, []int32{0, 1})
			if p != tc.p || inc != tc.inc || ok != tc.ok {
				t.Fatalf("MissingAmong = %d %d %v, want %d %d %v", p, inc, ok, tc.p, tc.inc, tc.ok)
			}
		})
	}
}

// TestKnownMatchesBruteForce checks the O(1) orphan test against the
// definition over every entry of a small grid.
func TestKnownMatchesBruteForce(t *testing.T) {
	sets := [][]Announcement{
		{{0, 0, 5}},
		{{0, 2, 1}, {0, 0, 4}},
		{{0, 1, 7}, {0, 3, 2}, {0, 0, 9}},
		{{0, 4, 0}},
	}
	for _, anns := range sets {
		s := NewKnown(1)
		for _, a := range anns {
			s.Add(a)
		}
		for y := int32(0); y < 6; y++ {
			for c := int32(0); c < 11; c++ {
				want := false
				for _, a := range anns {
					want = want || (y <= a.Inc && c > a.K)
				}
				if got := s.Orphan(trace.VT{{Inc: y, Count: c}}); got != want {
					t.Fatalf("%v: Orphan of entry (%d,%d) = %v, want %v", anns, y, c, got, want)
				}
			}
		}
	}
}
