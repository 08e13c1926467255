package compare

import (
	"math"
	"slices"
	"strconv"
)

// scale maps data values to pixels along one axis, linearly or
// logarithmically, and names its ticks.
type scale struct {
	log    bool
	lo, hi float64 // data range (log: both > 0)
	a, b   float64 // pixel range: lo maps to a, hi to b
}

// at returns the pixel of v.
func (s *scale) at(v float64) float64 {
	f := (v - s.lo) / (s.hi - s.lo)
	if s.log {
		f = (math.Log10(v) - math.Log10(s.lo)) / (math.Log10(s.hi) - math.Log10(s.lo))
	}
	return s.a + f*(s.b-s.a)
}

// xScale is the x axis over the grid's ratios: logarithmic when they
// span a factor of 10 or more (the classic plots' ICT axis), else
// linear; a single ratio gets a range around it.
func xScale(ratios []float64, a, b float64) scale {
	lo, hi := slices.Min(ratios), slices.Max(ratios)
	if hi/lo >= 10 {
		return scale{log: true, lo: lo / 1.15, hi: hi * 1.15, a: a, b: b}
	}
	pad := (hi - lo) * 0.05
	if pad == 0 {
		pad = lo / 2
	}
	return scale{lo: lo - pad, hi: hi + pad, a: a, b: b}
}

// yScale is the y axis over the plotted values: logarithmic when the
// positive ones span a factor of 30 or more — then zeros, which a log
// axis cannot show, go on a separate lane below it (zeroLane reports
// it) — else linear from 0.
func yScale(vals []float64, a, b float64) (s scale, zeroLane bool) {
	pmin, pmax := math.Inf(1), 0.0
	zero := false
	for _, v := range vals {
		if v > 0 {
			pmin, pmax = min(pmin, v), max(pmax, v)
		} else {
			zero = true
		}
	}
	if pmax == 0 {
		return scale{lo: 0, hi: 1, a: a, b: b}, false
	}
	if pmax/pmin >= 30 {
		return scale{log: true, lo: niceFloor(pmin), hi: niceCeil(pmax), a: a, b: b}, zero
	}
	return scale{lo: 0, hi: niceCeil(pmax), a: a, b: b}, false
}

// niceFloor rounds v > 0 down to 1, 2 or 5 times a power of ten.
func niceFloor(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{5, 2, 1} {
		if m*p <= v {
			return m * p
		}
	}
	return p
}

// niceCeil rounds v up to 1, 2, 2.5 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// yTicks returns the tick values of a y scale: 1, 2 and 5 per decade on
// a log scale (only the decades when there are many), five or so steps
// on a linear one.
func (s *scale) yTicks() []float64 {
	var out []float64
	if s.log {
		decades := math.Log10(s.hi) - math.Log10(s.lo)
		for d := math.Pow(10, math.Floor(math.Log10(s.lo)+1e-9)); d <= s.hi*1.0001; d *= 10 {
			for _, m := range []float64{1, 2, 5} {
				if v := d * m; v >= s.lo*0.9999 && v <= s.hi*1.0001 && (m == 1 || decades <= 3) {
					out = append(out, v)
				}
			}
		}
		return out
	}
	step := niceCeil(s.hi / 5)
	for v := 0.0; v <= s.hi*1.0001; v += step {
		out = append(out, v)
	}
	return out
}

// label writes a tick or data value briefly: 0.5, 2, 100, 2.5.
func label(v float64) string {
	return strconv.FormatFloat(v, 'g', 4, 64)
}
