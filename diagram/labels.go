package diagram

import (
	"cmp"
	"slices"
	"unicode/utf8"
)

// Type sizes (px). Nothing in a diagram is smaller than 12 px at zoom 1:
// issue 18 found 8-px text unreadable.
const (
	laneFont = 13.0 // lane names, bold
	textFont = 12.0 // everything else
)

// textWidth estimates the rendered width of s in DejaVu Sans (the
// stylesheet's first choice; Helvetica and Arial are narrower, so the
// estimate errs wide). The browser measures exactly; the SVG has only
// this estimate to keep names out of their lanes.
func textWidth(s string, size float64, bold bool) float64 {
	w := 0.0
	for _, r := range s {
		w += runeEm(r)
	}
	if bold {
		w *= 1.1
	}
	return w * size
}

// runeEm is an approximate advance width in em of DejaVu Sans.
func runeEm(r rune) float64 {
	switch {
	case r == ' ' || r == '.' || r == ',' || r == ':' || r == ';' || r == '\'' || r == '|' || r == '!':
		return 0.32
	case r == 'i' || r == 'l' || r == 'j' || r == 'f' || r == 't' || r == 'r' || r == '-' || r == '(' || r == ')' || r == '[' || r == ']':
		return 0.4
	case r >= 'A' && r <= 'Z', r == 'm' || r == 'w' || r == '@' || r == '%':
		return 0.75
	case r < utf8.RuneSelf:
		return 0.62
	default:
		return 0.9
	}
}

// box is a label's extent, for keeping labels apart.
type box struct{ x0, y0, x1, y1 float64 }

func (a box) overlaps(b box) bool {
	return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1
}

// placer hands out room for labels first come, first served: a label
// that would overlap one already placed is left out (its text is still
// in its element's hover details). Boxes are kept sorted by x0 so a
// check looks only at the neighbours that can reach it.
type placer struct {
	boxes []box
	maxW  float64
}

func (pl *placer) place(b box) bool {
	byX0 := func(a box, x float64) int { return cmp.Compare(a.x0, x) }
	// Only boxes starting less than the widest box's width before b can
	// reach it.
	lo, _ := slices.BinarySearchFunc(pl.boxes, b.x0-pl.maxW, byX0)
	for i := lo; i < len(pl.boxes) && pl.boxes[i].x0 < b.x1; i++ {
		if pl.boxes[i].overlaps(b) {
			return false
		}
	}
	at, _ := slices.BinarySearchFunc(pl.boxes, b.x0, byX0)
	pl.boxes = slices.Insert(pl.boxes, at, b)
	pl.maxW = max(pl.maxW, b.x1-b.x0)
	return true
}
