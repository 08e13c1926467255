package trace

import "testing"

// TestPiggybackBytes: the compact size of every shape.
func TestPiggybackBytes(t *testing.T) {
	bcs, fdas, hmnr := NewPiggyback(), NewPiggyback(), NewPiggyback()
	bcs.Sn = 2
	fdas.CIC = &CIC{LC: None, DV: []int32{3, 0, 1}}
	hmnr.CIC = &CIC{LC: 0, Ckpt: []int32{1, 0, 2}, Taken: []bool{false, true, true}, Greater: []bool{true, false, true}}
	ms := NewPiggyback()
	ms.Sn, ms.F = 3, []FEntry{{P: 1, Count: 1}}
	textbook := NewPiggyback()
	textbook.Sn, textbook.Inc, textbook.RecLine = 1, 2, 3
	pk := NewPiggyback()
	pk.VT = VT{{0, 1}, {1, 2}, {0, 0}}
	wide := NewPiggyback()
	wide.CIC = &CIC{LC: 5, Ckpt: make([]int32, 9), Taken: make([]bool, 9), Greater: make([]bool, 9)}
	for _, c := range []struct {
		name string
		pb   *Piggyback
		want int64
	}{
		{"nil", nil, 0},
		{"empty", &Piggyback{Sn: None, Inc: None, RecLine: None}, 0},
		{"bcs: sn", &bcs, 4},
		{"fdas: 3 entries of dv", &fdas, 12},
		{"hmnr: lc, 3 ckpt, 6 flags in one byte", &hmnr, 4 + 12 + 1},
		{"hmnr: 18 flags in three bytes", &wide, 4 + 36 + 3},
		{"ms: sn and one f entry", &ms, 12},
		{"textbook: three numbers", &textbook, 12},
		{"pk: three vt pairs", &pk, 24},
	} {
		if got := c.pb.Bytes(); got != c.want {
			t.Errorf("%s: %d bytes, want %d", c.name, got, c.want)
		}
	}
}

// TestCICSlab: vectors from a slab are zeroed, sized exactly (an append
// cannot run into the next one) and distinct; a CIC's lc starts absent.
func TestCICSlab(t *testing.T) {
	var s CICSlab
	a, b := s.Ints(3), s.Ints(3)
	a[0], b[0] = 7, 8
	if cap(a) != 3 || a[0] != 7 || b[0] != 8 || a[1] != 0 {
		t.Errorf("ints %v %v (cap %d)", a, b, cap(a))
	}
	if a4 := append(a, 9); b[0] != 8 || len(a4) != 4 {
		t.Error("an append to one vector wrote into the next")
	}
	f, g := s.Bools(2), s.Bools(2)
	f[1] = true
	if g[1] || cap(f) != 2 {
		t.Errorf("bools %v %v", f, g)
	}
	c, d := s.CIC(), s.CIC()
	if c == d || c.LC != None || c.DV != nil {
		t.Errorf("CICs %+v %+v", c, d)
	}
	big := s.Ints(5000)
	if len(big) != 5000 {
		t.Errorf("a vector longer than a chunk: %d", len(big))
	}
	for i := 0; i < 3000; i++ {
		s.CIC().LC = int32(i)
	}
}
