package diagram

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ckpt-dev/ckpt/trace"
)

// axis writes the caption saying what x means and, on the time axis,
// ticks at round times at least 90 px apart.
func (m *model) axis(x *xw) {
	top := m.geo.top
	x.raw(`<g class="axis"><text class="axis-caption"`)
	x.num("x", 10)
	x.num("y", top-axisH+18)
	x.raw(">")
	x.esc(m.axisCaption())
	x.raw("</text>")
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
			x.raw(`<line class="grid"`)
			x.num("x1", px)
			x.num("x2", px)
			x.num("y1", g.top-42)
			x.num("y2", m.lanesBottom())
			x.raw(`/><text class="tick"`)
			x.num("x", px)
			x.num("y", g.top-48)
			x.raw(">")
			x.raw(strconv.FormatFloat(t, 'f', dec, 64))
			x.raw(" s</text>")
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

// lanes writes each lane's line and name. The name sits in its own
// column left of column 0, shortened around what tells it from the
// other lanes if it is too long (laneLabels; the full name is its
// tooltip), so no mark ever covers it.
func (m *model) lanes(x *xw) {
	x.raw(`<g class="lanes">`)
	right := m.geo.width - 40
	labels := laneLabels(m.run.Processes, laneFont, true, m.geo.labelW-12)
	for p, name := range m.run.Processes {
		y := m.laneY(int32(p))
		x.raw(`<line class="lane"`)
		x.attr("data-p", name)
		x.num("x1", m.geo.left-12)
		x.num("x2", right)
		x.num("y1", y)
		x.num("y2", y)
		x.raw(`/><text class="lane-label"`)
		x.attr("data-p", name)
		x.num("x", 8)
		x.num("y", y+4.5)
		x.raw("><title>")
		x.esc(name)
		x.raw("</title>")
		x.esc(labels[p])
		x.raw("</text>")
	}
	x.raw("</g>\n")
}

func (m *model) bandsSVG(x *xw) {
	if len(m.gaps) == 0 {
		return
	}
	top := m.geo.top - 42
	bottom := m.lanesBottom()
	x.raw(`<g class="bands">`)
	for _, b := range m.gaps {
		x.raw(`<rect class="band"`)
		x.num("x", b.x0)
		x.num("y", top)
		x.num("width", max(b.x1-b.x0, 4))
		x.num("height", bottom-top)
		x.int("data-omitted", b.omitted)
		x.raw("><title>")
		x.esc(fmt.Sprintf("%d events left out, t=%ss to %ss", b.omitted, b.t0, b.t1))
		x.raw("</title></rect>")
		cx, cy := (b.x0+b.x1)/2, (top+bottom)/2
		x.raw(`<text class="band-label"`)
		x.num("x", cx)
		x.num("y", cy)
		x.raw(` transform="rotate(-90 `)
		x.f(cx)
		x.raw(" ")
		x.f(cy)
		x.raw(`)">`)
		x.esc(fmt.Sprintf("⋯ %d events left out ⋯", b.omitted))
		x.raw("</text>")
	}
	x.raw("</g>\n")
}

func (m *model) intervals(x *xw) {
	x.raw(`<g class="intervals">`)
	for _, d := range m.down {
		y := m.laneY(d.p)
		x.raw(`<rect class="down"`)
		x.int("data-seq", int(d.fail))
		x.num("x", m.x[d.from])
		x.num("y", y-12)
		x.num("width", max(m.x[d.to]-m.x[d.from], 2))
		x.num("height", 24)
		x.raw("><title>")
		x.esc(m.downText(d))
		x.raw("</title></rect>")
	}
	for _, h := range m.holds {
		y := m.laneY(h.p)
		x.raw(`<line class="held"`)
		x.int("data-seq", int(h.from))
		x.num("x1", m.x[h.from])
		x.num("x2", m.x[h.to])
		x.num("y1", y)
		x.num("y2", y)
		x.raw("><title>")
		x.escBytes(m.holdText(h))
		x.raw("</title></line>")
	}
	x.raw("</g>\n")
}

func (m *model) downText(d interval) string {
	return fmt.Sprintf("%s down from t=%ss to t=%ss", m.run.Processes[d.p], m.run.Events[d.from].T, m.run.Events[d.to].T)
}

func (m *model) holdText(h interval) []byte {
	b := m.describe(nil, h.from)
	b = append(b, "\n\n"...)
	return m.describe(b, h.to)
}

// pointXY is where a recovery-line point sits.
func (m *model) pointXY(pt linePoint) (float64, float64) {
	if pt.ev == trace.None {
		return m.geo.left, m.laneY(pt.p)
	}
	return m.x[pt.ev], m.laneY(pt.p)
}

func (m *model) rlines(x *xw) {
	x.raw(`<g class="rlines">`)
	for _, l := range m.lines {
		if len(l.points) == 0 {
			continue
		}
		x.raw(`<polyline class="rline"`)
		x.int("data-failure", int(l.fail))
		x.int("data-seq", int(l.fail))
		x.raw(` points="`)
		pts := l.points
		if len(pts) == 1 {
			pts = []linePoint{pts[0], pts[0]}
		}
		for i, pt := range pts {
			if i > 0 {
				x.raw(" ")
			}
			px, py := m.pointXY(pt)
			x.f(px)
			x.raw(",")
			x.f(py)
		}
		x.raw(`"><title>`)
		x.esc(m.lineText(l))
		x.raw("</title></polyline>")
	}
	x.raw("</g>\n")
}

// lineText lists where a failure's recovery line passes.
func (m *model) lineText(l rline) string {
	f := &m.run.Events[l.fail]
	var b strings.Builder
	fmt.Fprintf(&b, "recovery line of failure #%d (%s at t=%ss):", l.fail, m.run.Processes[f.P], f.T)
	for _, pt := range l.points {
		b.WriteString("\n")
		b.WriteString(m.run.Processes[pt.p])
		switch {
		case pt.ev == trace.None:
			b.WriteString(": initial checkpoint 0")
		case pt.kept:
			b.WriteString(": keeps its state (no rollback)")
		default:
			e := &m.run.Events[pt.ev]
			fmt.Fprintf(&b, ": checkpoint %d (%s)", e.Ckpt, e.CkptType)
			if e.Sn >= 0 {
				fmt.Fprintf(&b, " sn=%d", e.Sn)
			}
			if vt := m.run.VTOf(e); len(vt) > 0 {
				b.WriteString(" vt=")
				b.Write(appendVT(nil, vt))
			}
		}
	}
	return b.String()
}

// lostStub is where a lost arrow with no send starts, relative to the
// blocked end: it comes from nowhere.
const lostStubDX, lostStubDY = -56.0, -30.0

func (m *model) messages(x *xw) {
	x.raw(`<g class="messages">`)
	for _, a := range m.arrows {
		s, r := &m.run.Events[a.from], &m.run.Events[a.to]
		m.arrowLine(x, a, m.x[a.from], m.laneY(s.P), m.x[a.to], m.laneY(r.P))
	}
	for _, a := range m.lost {
		r := &m.run.Events[a.to]
		x2, y2 := m.x[a.to], m.laneY(r.P)
		x1, y1 := x2+lostStubDX, y2+lostStubDY
		if a.from != trace.None {
			x1, y1 = m.x[a.from], m.laneY(m.run.Events[a.from].P)
		}
		m.arrowLine(x, a, x1, y1, x2, y2)
	}
	x.raw("</g>\n")
	x.raw(`<g class="controls">`)
	for _, c := range m.ctl {
		s, r := &m.run.Events[c.from], &m.run.Events[c.to]
		x.raw(`<line class="ctl ctl-` + s.Control.String() + `"`)
		x.int("data-seq", int(c.from))
		x.int("data-to", int(c.to))
		x.num("x1", m.x[c.from])
		x.num("y1", m.laneY(s.P))
		x.num("x2", m.x[c.to])
		x.num("y2", m.laneY(r.P))
		x.raw(` marker-end="url(#ah-ctl)"><title>`)
		x.escBytes(m.ctlText(c))
		x.raw("</title></line>")
	}
	x.raw("</g>\n")
}

func (m *model) arrowLine(x *xw, a arrow, x1, y1, x2, y2 float64) {
	x.raw(`<line class="msg msg-` + a.style)
	if a.from == trace.None || m.run.Events[a.to].Kind == trace.End {
		x.raw(" lost-receive")
	}
	if a.undone {
		x.raw(" undone")
	}
	x.raw(`"`)
	if a.from != trace.None {
		x.int("data-seq", int(a.from))
	}
	x.int("data-to", int(a.to))
	x.num("x1", x1)
	x.num("y1", y1)
	x.num("x2", x2)
	x.num("y2", y2)
	x.raw(` marker-end="url(#ah-` + a.style + `)"><title>`)
	x.escBytes(m.arrowText(a))
	x.raw("</title></line>")
}

// arrowText is an arrow's hover text: the message, its fate, and both
// ends' details.
func (m *model) arrowText(a arrow) []byte {
	b := append([]byte(nil), m.msgName(a.msg)...)
	if a.from != trace.None {
		b = append(b, " copy "...)
		b = strconv.AppendInt(b, int64(m.run.Events[a.from].Copy), 10)
	}
	b = append(b, ": "...)
	b = append(b, m.fate(a)...)
	b = append(b, '\n')
	if a.from != trace.None {
		b = m.describe(b, a.from)
		b = append(b, "\n→ "...)
	}
	return m.describe(b, a.to)
}

// fate says in words what became of a copy.
func (m *model) fate(a arrow) string {
	switch {
	case m.run.Events[a.to].Kind == trace.End && a.from == trace.None:
		return "lost: the receive waits forever and no copy was ever sent"
	case m.run.Events[a.to].Kind == trace.End:
		return "lost: the receive waits forever; this is the message's last send"
	case a.style == styleOrphan && m.run.Events[a.to].Kind == trace.Recv:
		return "orphan: received, then its send was undone"
	}
	return fates[a.style]
}

// fates says in words what each message style means (the page's
// script has the same table).
var fates = map[string]string{
	styleNormal: "delivered", styleReplayed: "delivered again from the message log", styleResent: "a resend, delivered",
	styleDiscarded: "discarded (stale or duplicate)", styleLost: "lost: never received (left in the mailbox)",
	styleOrphan: "orphan: discarded as an orphan",
}

func (m *model) ctlText(c ctlArrow) []byte {
	b := m.describe(nil, c.from)
	b = append(b, "\n→ "...)
	return m.describe(b, c.to)
}

func (m *model) msgName(msg int32) string {
	if msg >= 0 && int(msg) < len(m.run.Msgs) {
		return m.run.Msgs[msg]
	}
	return "?"
}

func (m *model) jumpsSVG(x *xw) {
	x.raw(`<g class="jumps">`)
	for _, j := range m.jumps {
		e := &m.run.Events[j.ev]
		y := m.laneY(e.P)
		x0 := m.x[j.ev]
		x1 := m.geo.left
		if j.ckpt != trace.None {
			x1 = m.x[j.ckpt]
		}
		lift := min(24+(x0-x1)/12, 38)
		x.raw(`<path class="jump jump-` + e.Kind.String() + `"`)
		x.int("data-seq", int(j.ev))
		x.raw(` d="M`)
		x.f(x0)
		x.raw(" ")
		x.f(y - 4)
		x.raw(" C")
		x.f(x0)
		x.raw(" ")
		x.f(y - lift)
		x.raw(" ")
		x.f(x1)
		x.raw(" ")
		x.f(y - lift)
		x.raw(" ")
		x.f(x1)
		x.raw(" ")
		x.f(y - 9)
		x.raw(`" marker-end="url(#ah-jump)"><title>`)
		x.escBytes(m.jumpText(j))
		x.raw("</title></path>")
	}
	x.raw("</g>\n")
}

// rings circles each violation's witness events; the HTML page highlights
// a violation's rings when its entry is clicked.
func (m *model) rings(x *xw) {
	x.raw(`<g class="violations">`)
	for v, seqs := range m.violSeqs {
		for _, s := range seqs {
			e := &m.run.Events[s]
			x.raw(`<circle class="viol"`)
			x.int("data-v", v)
			x.int("data-seq", int(s))
			x.num("cx", m.x[s])
			x.num("cy", m.laneY(e.P))
			x.raw(` r="10"><title>`)
			x.esc(m.violOf[v].Property + ": " + m.violOf[v].Message)
			x.raw("</title></circle>")
		}
	}
	for i := range m.run.Events {
		if n, ok := m.notes[int32(i)]; ok {
			x.raw(`<circle class="diff"`)
			x.int("data-seq", i)
			x.num("cx", m.x[i])
			x.num("cy", m.laneY(m.run.Events[i].P))
			x.raw(` r="8"><title>`)
			x.esc(n)
			x.raw("</title></circle>")
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
	x.raw(`<g class="violation-list"><text class="viol-head" x="10"`)
	x.num("y", y)
	x.raw(">Violations</text>")
	y += 6
	for v, lines := range vl {
		x.raw(`<g class="viol-entry"`)
		x.int("data-v", v)
		x.raw(">")
		for k, l := range lines {
			y += violLineH
			c := "viol-text"
			if k > 0 {
				c = "because"
			}
			x.raw(`<text class="` + c + `" x="14"`)
			x.num("y", y)
			x.raw(">")
			x.esc(l)
			x.raw("</text>")
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
