package diagram

import (
	"slices"

	"github.com/ckpt-dev/ckpt/trace"
)

// Layout constants, in SVG user units (CSS px at zoom 1).
const (
	laneGap   = 64.0 // between lanes
	colW      = 30.0 // one logical column
	colTarget = 30.0 // the time axis puts a lane's median gap this wide
	tieGap    = 14.0 // events at one instant on one lane (time axis)
	bandCols  = 3    // a left-out stretch, in logical columns
	bandW     = 70.0 // a left-out stretch on the time axis
	plotPad   = 24.0 // from the lane names to column 0
	rightPad  = 60.0
	minPPS    = 1e-6 // px per second, so that x stays finite
	// maxTimeW bounds the time axis: a run whose median gap is a
	// nanosecond but which lasts minutes would otherwise be kilometres
	// wide (and have as many ticks).
	maxTimeW = 200_000.0
)

// geometry is where the panel's parts go: lane names in a column left
// of column 0 (t = 0, the initial checkpoints) at left, the first lane
// at top (set once the header above it is sized).
type geometry struct {
	left float64
	top  float64
	// scale is px per logical column, or per second on the time axis.
	scale float64
	width float64
}

// nameColumn is the width of the lane-name column, from the longest
// name, so every name is written whole and none runs into its lane (a
// static drawing as wide as the run can afford it; the page, which must
// fit a window, shortens names: core.js fitLanes).
func (m *model) nameColumn() float64 {
	longest := 0.0
	for _, p := range m.run.Processes {
		longest = max(longest, textWidth(p, laneFont, true))
	}
	return max(longest+16, 56)
}

func (m *model) laneY(p int32) float64 { return m.geo.top + float64(p)*laneGap }

// at is where event i is drawn.
func (m *model) at(i int32) (float64, float64) { return m.x[i], m.laneY(m.run.Events[i].P) }

// lanesBottom is where the lanes end; the violation list goes below.
func (m *model) lanesBottom() float64 {
	return m.laneY(int32(len(m.run.Processes)-1)) + laneGap/2
}

// layout gives every drawn event its x on the chosen axis (the SVG's;
// the page lays events out in the browser).
func (m *model) layout() {
	m.geo = geometry{left: m.nameColumn() + plotPad}
	layout := m.layoutLogical
	if m.opts.Axis == AxisTime {
		layout = m.layoutTime
	}
	m.geo.width = layout() + rightPad
}

// walk lays the drawn events and left-out stretches out in run order:
// band places a stretch right of everything drawn so far (right), place
// an event. It returns the rightmost x drawn.
func (m *model) walk(band func(gp *gap, right float64), place func(i int32)) float64 {
	right := m.geo.left
	gi := 0
	for i := range m.run.Events {
		if !m.drawn[i] {
			continue
		}
		if gi < len(m.gaps) && m.gaps[gi].before == int32(i) {
			band(&m.gaps[gi], right)
			right = max(right, m.gaps[gi].x1)
			gi++
		}
		place(int32(i))
		right = max(right, m.x[i])
	}
	if gi < len(m.gaps) {
		band(&m.gaps[gi], right)
		right = max(right, m.gaps[gi].x1)
	}
	return right
}

// layoutLogical places each event one column right of the previous mark
// on its lane and of the event it depends on (the send of the copy it
// takes, the control message it receives): happened-before order, so
// every arrow points right. Events without a mark of their own sit on
// the mark before them. A left-out stretch is a barrier a few columns
// wide across all lanes.
func (m *model) layoutLogical() float64 {
	np := len(m.run.Processes)
	g := &m.geo
	g.scale = colW
	col := make([]int32, m.n)
	next := fill(np, 1)       // the next free column of each lane; column 0 holds the initial checkpoints
	last := make([]int32, np) // the column of each lane's last mark
	top := int32(0)           // the rightmost column used so far
	x := func(c int32) float64 { return g.left + float64(c)*g.scale }
	band := func(gp *gap, _ float64) {
		gp.x0, gp.x1 = x(top)+12, x(top+bandCols)-12
		for p := range next {
			next[p], last[p] = top+bandCols, top+bandCols
		}
	}
	return m.walk(band, func(i int32) {
		e := &m.run.Events[i]
		p := e.P
		var c int32
		if slotted(e.Kind) {
			c = next[p]
			if d := m.dep[i]; d >= 0 {
				c = max(c, col[d]+1)
			}
			last[p], next[p] = c, c+1
		} else {
			c = last[p]
			if d := m.dep[i]; d >= 0 && col[d]+1 > c {
				// A control message arrives after the lane's last mark:
				// the next mark (the rollback it causes) goes there.
				c = col[d] + 1
				next[p] = max(next[p], c)
			}
		}
		col[i] = c
		top = max(top, c)
		m.x[i] = x(c)
	})
}

// layoutTime places events at their real time, to scale: a lane's median
// gap between events is colTarget px. Events at one instant on one lane
// are spread tieGap apart; a left-out stretch is shrunk to bandW.
func (m *model) layoutTime() float64 {
	g := &m.geo
	g.scale = m.timeScale()
	np := len(m.run.Processes)
	lastT := slices.Repeat([]trace.Time{-1}, np)
	slot := make([]int32, np)
	var shift float64 // seconds removed by left-out stretches
	band := func(gp *gap, right float64) {
		// The band starts right of everything drawn so far and the
		// time after it (t1) resumes bandW further on.
		from := max(g.left+(gp.t0.Seconds()-shift)*g.scale, right+tieGap)
		shift = gp.t1.Seconds() - (from+bandW-g.left)/g.scale
		gp.x0, gp.x1, gp.shift = from+6, from+bandW-6, shift
	}
	return m.walk(band, func(i int32) {
		e := &m.run.Events[i]
		p := e.P
		if e.T != lastT[p] {
			lastT[p], slot[p] = e.T, 0
		}
		rank := max(slot[p]-1, 0)
		if slotted(e.Kind) {
			rank = slot[p]
			slot[p]++
		}
		m.x[i] = g.left + (e.T.Seconds()-shift)*g.scale + float64(rank)*tieGap
	})
}

// timeScale is px per second such that the median gap between
// consecutive distinct times on a lane is colTarget px.
func (m *model) timeScale() float64 {
	np := len(m.run.Processes)
	last := slices.Repeat([]trace.Time{-1}, np)
	var gaps []float64
	for i := range m.run.Events {
		e := &m.run.Events[i]
		if !m.drawn[i] || !slotted(e.Kind) {
			continue
		}
		if last[e.P] >= 0 && e.T > last[e.P] {
			gaps = append(gaps, (e.T - last[e.P]).Seconds())
		}
		last[e.P] = e.T
	}
	if len(gaps) == 0 {
		return colTarget
	}
	slices.Sort(gaps)
	scale := max(colTarget/gaps[len(gaps)/2], minPPS)
	if span := m.run.Events[m.n-1].T.Seconds(); span > 0 {
		scale = min(scale, maxTimeW/span)
	}
	return scale
}
