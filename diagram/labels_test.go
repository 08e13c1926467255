package diagram

import "testing"

// TestPlacerColumn: a label in every lane at the same x (MS's implicit sn
// 0 at the left edge) is placed in every lane, and a check looks at few
// boxes: bucketed by x alone, each label was checked against all those
// of the lanes above, time quadratic in the processes.
func TestPlacerColumn(t *testing.T) {
	const lanes = 1000
	pl := placer{}
	for p := range lanes {
		y := float64(p)*laneGap + 24
		if !pl.place(box{-8, y - textFont, 8, y + 3}) {
			t.Fatalf("lane %d: its label overlaps none yet was left out", p)
		}
	}
	if pl.place(box{0, 20, 30, 30}) {
		t.Error("a label over lane 0's was placed")
	}
	for k, bs := range pl {
		if len(bs) > 4 {
			t.Fatalf("bucket %v holds %d labels: a check scans them all", k, len(bs))
		}
	}
}
