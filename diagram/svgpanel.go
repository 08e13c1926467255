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
	x.raw(`<g class="axis">`)
	x.text("axis-caption", 10, m.geo.top-axisH+18, m.axisCaption())
	if m.opts.Axis == AxisTime {
		m.timeTicks(x)
	}
	x.raw("</g>\n")
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
			x.el("line", "grid")
			x.nums("x1 x2 y1 y2", px, px, g.top-42, m.lanesBottom())
			x.raw(`/>`)
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
	x.raw(`<g class="lanes">`)
	for p, name := range m.run.Processes {
		y := m.laneY(int32(p))
		x.el("line", "lane")
		x.attr("data-p", name)
		x.nums("x1 x2 y1 y2", m.geo.left-12, m.geo.width-40, y, y)
		x.raw(`/>`)
		x.el("text", "lane-label")
		x.attr("data-p", name)
		x.nums("x y", 8, y+4.5)
		x.raw("><title>")
		x.esc(name)
		x.raw("</title>")
		x.esc(name)
		x.raw("</text>")
	}
	x.raw("</g>\n")
}

func (m *model) bandsSVG(x *xw) {
	if len(m.gaps) == 0 {
		return
	}
	top, bottom := m.geo.top-42, m.lanesBottom()
	x.raw(`<g class="bands">`)
	for _, b := range m.gaps {
		x.el("rect", "band")
		x.nums("x y width height data-omitted", b.x0, top, max(b.x1-b.x0, 4), bottom-top, float64(b.omitted))
		x.end("rect", fmt.Sprintf("%d events left out, t=%ss to %ss", b.omitted, b.t0, b.t1))
		cx, cy := (b.x0+b.x1)/2, (top+bottom)/2
		x.el("text", "band-label")
		x.nums("x y", cx, cy)
		x.raw(` transform="rotate(-90 `)
		x.coords(cx, cy)
		x.raw(`)">`)
		x.esc(fmt.Sprintf("⋯ %d events left out ⋯", b.omitted))
		x.raw("</text>")
	}
	x.raw("</g>\n")
}

func (m *model) intervals(x *xw) {
	x.raw(`<g class="intervals">`)
	for _, d := range m.down {
		x.el("rect", "down")
		x.nums("data-seq x y width height", float64(d.from), m.x[d.from], m.laneY(d.p)-12, max(m.x[d.to]-m.x[d.from], 2), 24)
		x.end("rect", m.downText(d))
	}
	for _, h := range m.holds {
		y := m.laneY(h.p)
		x.el("line", "held")
		x.nums("data-seq x1 x2 y1 y2", float64(h.from), m.x[h.from], m.x[h.to], y, y)
		x.end("line", m.pairText(nil, h.from, "\n\n", h.to))
	}
	x.raw("</g>\n")
}

func (m *model) rlines(x *xw) {
	x.raw(`<g class="rlines">`)
	for _, l := range m.lines {
		if len(l.points) == 0 {
			continue
		}
		x.el("polyline", "rline")
		x.nums("data-failure data-seq", float64(l.fail), float64(l.fail))
		x.raw(` points="`)
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
			x.f(px)
			x.raw(",")
			x.f(m.laneY(pt.p))
		}
		x.raw(`"`)
		x.end("polyline", m.lineText(l))
	}
	x.raw("</g>\n")
}

// lostStub is where a lost arrow with no send starts, relative to the
// blocked end: it comes from nowhere.
const lostStubDX, lostStubDY = -56.0, -30.0

func (m *model) messages(x *xw) {
	x.raw(`<g class="messages">`)
	for _, a := range slices.Concat(m.arrows, m.lost) {
		m.arrowLine(x, a)
	}
	x.raw("</g>\n")
	x.raw(`<g class="controls">`)
	for _, c := range m.ctl {
		x1, y1 := m.at(c.from)
		x2, y2 := m.at(c.to)
		x.el("line", "ctl ctl-"+m.run.Events[c.from].Control.String())
		x.nums("data-seq data-to x1 y1 x2 y2", float64(c.from), float64(c.to), x1, y1, x2, y2)
		x.raw(` marker-end="url(#ah-ctl)"`)
		x.end("line", m.pairText(nil, c.from, "\n→ ", c.to))
	}
	x.raw("</g>\n")
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
	x.el("line", class)
	if a.from != trace.None {
		x.nums("data-seq", float64(a.from))
	}
	x.nums("data-to x1 y1 x2 y2", float64(a.to), x1, y1, x2, y2)
	x.raw(` marker-end="url(#ah-` + a.style + `)"`)
	x.end("line", m.arrowText(a))
}

func (m *model) jumpsSVG(x *xw) {
	x.raw(`<g class="jumps">`)
	for _, j := range m.jumps {
		e := &m.run.Events[j.ev]
		y := m.laneY(e.P)
		x0, x1 := m.x[j.ev], m.geo.left
		if j.ckpt != trace.None {
			x1 = m.x[j.ckpt]
		}
		lift := min(24+(x0-x1)/12, 38)
		x.el("path", "jump jump-"+e.Kind.String())
		x.nums("data-seq", float64(j.ev))
		x.raw(` d="M`)
		x.coords(x0, y-4)
		x.raw(" C")
		x.coords(x0, y-lift, x1, y-lift, x1, y-9)
		x.raw(`" marker-end="url(#ah-jump)"`)
		x.end("path", string(m.describe(append(m.jumpHead(nil, j), "\n\n"...), j.ev)))
	}
	x.raw("</g>\n")
}

// rings circles each violation's witness events; the HTML page highlights
// a violation's rings when its entry is clicked.
func (m *model) rings(x *xw) {
	x.raw(`<g class="violations">`)
	for v, seqs := range m.violSeqs {
		for _, s := range seqs {
			x.el("circle", "viol")
			x.nums("data-v data-seq cx cy", float64(v), float64(s), m.x[s], m.laneY(m.run.Events[s].P))
			x.raw(` r="10"`)
			x.end("circle", m.violOf[v].Property+": "+m.violOf[v].Message)
		}
	}
	for i := range m.run.Events {
		if n, ok := m.notes[int32(i)]; ok {
			x.el("circle", "diff")
			x.nums("data-seq cx cy", float64(i), m.x[i], m.laneY(m.run.Events[i].P))
			x.raw(` r="8"`)
			x.end("circle", n)
		}
	}
	x.raw("</g>\n")
}

// violLines is the violation list, wrapped.
func (m *model) violLines() [][]string {
	out := make([][]string, len(m.violOf))
	for i, v := range m.violOf {
		lines := []string{"✗ " + v.Property + ": " + v.Message}
		if v.Because != "" {
			lines = append(lines, wrap("because "+v.Because, 140)...)
		}
		out[i] = lines
	}
	return out
}

func (m *model) violList(x *xw) {
	vl := m.violLines()
	if len(vl) == 0 {
		return
	}
	y := m.lanesBottom() + 30
	x.raw(`<g class="violation-list">`)
	x.text("viol-head", 10, y, "Violations")
	y += 6
	for v, lines := range vl {
		x.raw(`<g class="viol-entry"`)
		x.nums("data-v", float64(v))
		x.raw(">")
		for k, l := range lines {
			y += violLineH
			c := "viol-text"
			if k > 0 {
				c = "because"
			}
			x.text(c, 14, y, l)
		}
		x.raw("</g>")
		y += 4
	}
	x.raw("</g>\n")
}

// wrap breaks s into lines of at most width runes, at spaces where it
// can.
func wrap(s string, width int) []string {
	var out []string
	for len(s) > 0 {
		r := []rune(s)
		if len(r) <= width {
			out = append(out, s)
			break
		}
		cut := width
		for cut > width/2 && r[cut] != ' ' {
			cut--
		}
		if r[cut] != ' ' {
			cut = width
		}
		out = append(out, string(r[:cut]))
		s = strings.TrimLeft(string(r[cut:]), " ")
	}
	return out
}
