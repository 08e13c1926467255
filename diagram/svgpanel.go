package diagram

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ckpt-dev/ckpt/trace"
)

// axis writes the caption saying what x means and, on the time axis,
// ticks at round times at least 90 px apart.
func (m *model) axis(x *xw) {
	x.text("axis-caption", 10, m.geo.top-axisH+18, m.axisCaption())
	if m.opts.Axis == AxisTime {
		m.timeTicks(x)
	}
}

// timeTicks labels round times on each stretch of the run the time axis
// draws continuously (left-out stretches break it).
func (m *model) timeTicks(x *xw) {
	g := &m.geo
	step := niceStep(90 / g.scale)
	dec := max(0, -int(math.Floor(math.Log10(step))))
	end := 0.0
	if m.n > 0 {
		end = m.run.Events[m.n-1].T.Seconds()
	}
	from, shift := 0.0, 0.0
	seg := func(t0, t1 float64) {
		for k := math.Ceil(t0 / step); k*step <= t1; k++ {
			t := k * step
			px := g.left + (t-shift)*g.scale
			x.put(`<line class="grid" x1="%v" x2="%[1]v" y1="%v" y2="%v"/>`, px, g.top-42, m.lanesBottom())
			x.text("tick", px, g.top-48, strconv.FormatFloat(t, 'f', dec, 64)+" s")
		}
	}
	for _, gp := range m.gaps {
		seg(from, gp.t0.Seconds())
		if gp.before == trace.None {
			return
		}
		from, shift = gp.t1.Seconds(), gp.shift
	}
	seg(from, end)
}

// niceStep is the smallest 1, 2 or 5 × 10^k at least s.
func niceStep(s float64) float64 {
	if !(s > 0) || math.IsInf(s, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(s)))
	for _, f := range []float64{1, 2, 5, 10} {
		if f*p >= s {
			return f * p
		}
	}
	return 10 * p
}

// lanes writes each lane's line and name. The name sits whole in its
// own column left of column 0, so no mark ever covers it.
func (m *model) lanes(x *xw) {
	for p, name := range m.run.Processes {
		y := m.laneY(int32(p))
		x.put(`<line class="lane" data-p="%v" x1="%v" x2="%v" y1="%v" y2="%[4]v"/>`, name, m.geo.left-12, m.geo.width-40, y)
		x.put(`<text class="lane-label" data-p="%v" x="8" y="%v"><title>%[1]v</title>%[1]v</text>`, name, y+4.5)
	}
}

func (m *model) bands(x *xw) {
	top, bottom := m.geo.top-42, m.lanesBottom()
	for _, b := range m.gaps {
		x.put(`<rect class="band" x="%v" y="%v" width="%v" height="%v" data-omitted="%v"`, b.x0, top, max(b.x1-b.x0, 4), bottom-top, b.omitted)
		x.end("rect", fmt.Sprintf("%d events left out, t=%ss to %ss", b.omitted, b.t0, b.t1))
		cx, cy := (b.x0+b.x1)/2, (top+bottom)/2
		x.put(`<text class="band-label" x="%v" y="%v" transform="rotate(-90 %[1]v %[2]v)">⋯ %v events left out ⋯</text>`, cx, cy, b.omitted)
	}
}

func (m *model) intervals(x *xw) {
	for _, d := range m.down {
		x.put(`<rect class="down" data-seq="%v" x="%v" y="%v" width="%v" height="24"`, d.from, m.x[d.from], m.laneY(d.p)-12, max(m.x[d.to]-m.x[d.from], 2))
		x.end("rect", m.downText(d))
	}
	for _, h := range m.holds {
		y := m.laneY(h.p)
		x.put(`<line class="held" data-seq="%v" x1="%v" x2="%v" y1="%v" y2="%[4]v"`, h.from, m.x[h.from], m.x[h.to], y)
		x.end("line", m.pairText(nil, h.from, "\n\n", h.to))
	}
}

func (m *model) rlines(x *xw) {
	for _, l := range m.lines {
		if len(l.points) == 0 {
			continue
		}
		x.put(`<polyline class="rline" data-failure="%v" data-seq="%[1]v" points="`, l.fail)
		pts := l.points
		if len(pts) == 1 {
			pts = []linePoint{pts[0], pts[0]}
		}
		for i, pt := range pts {
			if i > 0 {
				x.raw(" ")
			}
			px := m.geo.left // the initial checkpoint, in column 0
			if pt.ev != trace.None {
				px = m.x[pt.ev]
			}
			x.put("%v,%v", px, m.laneY(pt.p))
		}
		x.raw(`"`)
		x.end("polyline", m.lineText(l))
	}
}

// lostStub is where a lost arrow with no send starts, relative to the
// blocked end: it comes from nowhere.
const lostStubDX, lostStubDY = -56.0, -30.0

func (m *model) messages(x *xw) {
	for _, a := range slices.Concat(m.arrows, m.lost) {
		m.arrowLine(x, a)
	}
}

func (m *model) controls(x *xw) {
	for _, c := range m.ctl {
		x1, y1 := m.at(c.from)
		x2, y2 := m.at(c.to)
		x.put(`<line class="ctl ctl-%v" data-seq="%v" data-to="%v" x1="%v" y1="%v" x2="%v" y2="%v" marker-end="url(#ah-ctl)"`, m.run.Events[c.from].Control.String(), c.from, c.to, x1, y1, x2, y2)
		x.end("line", m.pairText(nil, c.from, "\n→ ", c.to))
	}
}

// arrowLine draws a message arrow; a lost one without a send comes from
// nowhere (lostStub).
func (m *model) arrowLine(x *xw, a arrow) {
	x2, y2 := m.at(a.to)
	x1, y1 := x2+lostStubDX, y2+lostStubDY
	if a.from != trace.None {
		x1, y1 = m.at(a.from)
	}
	class := "msg msg-" + a.style
	if a.from == trace.None || m.run.Events[a.to].Kind == trace.End {
		class += " lost-receive"
	}
	if a.undone {
		class += " undone"
	}
	x.put(`<line class="%v"`, class)
	if a.from != trace.None {
		x.put(` data-seq="%v"`, a.from)
	}
	x.put(` data-to="%v" x1="%v" y1="%v" x2="%v" y2="%v" marker-end="url(#ah-%v)"`, a.to, x1, y1, x2, y2, a.style)
	x.end("line", m.arrowText(a))
}

func (m *model) jumpsSVG(x *xw) {
	for _, j := range m.jumps {
		e := &m.run.Events[j.ev]
		y := m.laneY(e.P)
		x0, x1 := m.x[j.ev], m.geo.left
		if j.ckpt != trace.None {
			x1 = m.x[j.ckpt]
		}
		lift := min(24+(x0-x1)/12, 38)
		x.put(`<path class="jump jump-%v" data-seq="%v" d="M%[3]v %[4]v C%[3]v %[5]v %[6]v %[5]v %[6]v %[7]v" marker-end="url(#ah-jump)"`, e.Kind.String(), j.ev, x0, y-4, y-lift, x1, y-9)
		x.end("path", string(m.describe(append(m.jumpHead(nil, j), "\n\n"...), j.ev)))
	}
}

// rings circles each violation's witness events; the HTML page highlights
// a violation's rings when its entry is clicked.
func (m *model) rings(x *xw) {
	for v, seqs := range m.violSeqs {
		for _, s := range seqs {
			x.put(`<circle class="viol" data-v="%v" data-seq="%v" cx="%v" cy="%v" r="10"`, v, s, m.x[s], m.laneY(m.run.Events[s].P))
			x.end("circle", m.violOf[v].Property+": "+m.violOf[v].Message)
		}
	}
	for i := range m.run.Events {
		if n, ok := m.notes[int32(i)]; ok {
			x.put(`<circle class="diff" data-seq="%v" cx="%v" cy="%v" r="8"`, i, m.x[i], m.laneY(m.run.Events[i].P))
			x.end("circle", n)
		}
	}
}

// violList writes the violation list below the lanes, the because lines
// wrapped, and returns where the panel ends.
func (m *model) violList(x *xw) float64 {
	if len(m.violOf) == 0 {
		return m.lanesBottom() + 10
	}
	y := m.lanesBottom() + 30
	x.raw(`<g class="violation-list">`)
	x.text("viol-head", 10, y, "Violations")
	y += 6
	for v, vo := range m.violOf {
		x.put(`<g class="viol-entry" data-v="%v">`, v)
		y += violLineH
		x.text("viol-text", 14, y, "✗ "+vo.Property+": "+vo.Message)
		if vo.Because != "" {
			for _, l := range wrap("because "+vo.Because, 140) {
				y += violLineH
				x.text("because", 14, y, l)
			}
		}
		x.raw("</g>")
		y += 4
	}
	x.raw("</g>\n")
	return y + 4 // a margin below the list
}

// wrap breaks s into lines of at most width runes, at spaces where it
// can.
func wrap(s string, width int) []string {
	var out []string
	r := []rune(s)
	for len(r) > width {
		cut := width
		for cut > width/2 && r[cut] != ' ' {
			cut--
		}
		if r[cut] != ' ' {
			cut = width
		}
		out = append(out, string(r[:cut]))
		r = []rune(strings.TrimLeft(string(r[cut:]), " "))
	}
	if len(r) > 0 {
		out = append(out, string(r))
	}
	return out
}
