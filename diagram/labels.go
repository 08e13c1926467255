package diagram

import (
	"math"
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
// in its element's hover details). Boxes are bucketed by 100 px squares,
// so a check looks only at its neighbours: as placed boxes never overlap,
// a square holds few of them, where a bucket of x alone (the page's
// Placer) gathers a label of every lane.
type placer map[[2]int][]box

func (pl placer) place(b box) bool {
	x0, x1 := int(math.Floor(b.x0/100)), int(math.Floor(b.x1/100))
	y0, y1 := int(math.Floor(b.y0/100)), int(math.Floor(b.y1/100))
	for x := x0; x <= x1; x++ {
		for y := y0; y <= y1; y++ {
			if slices.ContainsFunc(pl[[2]int{x, y}], b.overlaps) {
				return false
			}
		}
	}
	for x := x0; x <= x1; x++ {
		for y := y0; y <= y1; y++ {
			pl[[2]int{x, y}] = append(pl[[2]int{x, y}], b)
		}
	}
	return true
}
