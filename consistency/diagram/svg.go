package diagram

import (
	_ "embed"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ckpt-dev/ckpt/consistency/report"
	"github.com/ckpt-dev/ckpt/trace"
)

//go:embed assets/diagram.css
var diagramCSS string

// SVG writes run as a standalone SVG space-time diagram. rep is the
// checker's report on run (its violations are highlighted) or nil.
func SVG(w io.Writer, run *trace.Run, rep *report.Report, opts Options) error {
	m, err := build(run, rep, opts)
	if err != nil {
		return err
	}
	var x xw
	x.raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	m.svg(&x)
	_, err = w.Write(x.b)
	return err
}

// legendItem is one entry of the legend: a sample mark and its meaning.
type legendItem struct {
	class, label, sample string
}

// legend lists every style the diagram uses. Samples are drawn at (0,0),
// 30 px wide.
var legend = []legendItem{
	{"ev-send", "send", `<circle class="ev ev-send" cx="15" cy="0" r="4"/>`},
	{"ev-recv", "receive", `<circle class="ev ev-recv" cx="15" cy="0" r="4"/>`},
	{"ev-internal", "internal op", `<circle class="ev ev-internal" cx="15" cy="0" r="4"/>`},
	{"undone", "undone (faded)", `<circle class="ev ev-send undone" cx="15" cy="0" r="4"/>`},
	{"ckpt-initial", "initial checkpoint", `<rect class="ckpt ckpt-initial" x="11" y="-8" width="8" height="16"/>`},
	{"ckpt-basic", "basic checkpoint", `<rect class="ckpt ckpt-basic" x="11" y="-8" width="8" height="16"/>`},
	{"ckpt-forced", "forced checkpoint", `<rect class="ckpt ckpt-forced" x="11" y="-8" width="8" height="16"/>`},
	{"ckpt-recovery", "recovery checkpoint", `<rect class="ckpt ckpt-recovery" x="11" y="-8" width="8" height="16"/>`},
	{"ev-skipped", "skipped tick", `<path class="ev ev-skipped" d="M15 -6 V6"/>`},
	{"ev-fail", "failure, down time", `<rect class="down" x="15" y="-9" width="15" height="18"/><path class="ev ev-fail" d="M10 -5 L20 5 M10 5 L20 -5"/>`},
	{"jump", "rollback to checkpoint", `<path class="jump" d="M28 0 C28 -14 4 -14 4 -1" marker-end="url(#ah-jump)"/>`},
	{"rline", "recovery line", `<path class="rline" d="M2 -8 L28 8"/>`},
	{"msg-normal", "message", `<path class="msg msg-normal" d="M0 0 H26" marker-end="url(#ah-normal)"/>`},
	{"msg-orphan", "orphan (discarded)", `<path class="msg msg-orphan" d="M0 0 H26" marker-end="url(#ah-orphan)"/>`},
	{"msg-lost", "lost (unconsumed / blocked)", `<path class="msg msg-lost" d="M0 0 H26" marker-end="url(#ah-lost)"/>`},
	{"msg-discarded", "discarded (stale / duplicate)", `<path class="msg msg-discarded" d="M0 0 H26" marker-end="url(#ah-discarded)"/>`},
	{"msg-replayed", "replayed from the log", `<path class="msg msg-replayed" d="M0 0 H26" marker-end="url(#ah-replayed)"/>`},
	{"msg-resent", "resent", `<path class="msg msg-resent" d="M0 0 H26" marker-end="url(#ah-resent)"/>`},
	{"ctl", "control message", `<path class="ctl" d="M0 0 H26" marker-end="url(#ah-ctl)"/>`},
	{"held", "held receive", `<path class="held" d="M2 0 H28"/>`},
	{"viol", "violation witness", `<circle class="viol" cx="15" cy="0" r="8"/>`},
}

var arrowStyles = []string{styleNormal, styleOrphan, styleLost, styleDiscarded, styleReplayed, styleResent, "ctl", "jump"}

const (
	legendCols  = 7
	legendColW  = 200.0
	legendRowH  = 20.0
	legendTop   = 60.0
	violLineH   = 16.0
	wrapColumns = 150
)

func (m *model) svgWidth() float64 { return max(m.width, legendCols*legendColW+40) }

// violation list lines, wrapped, computed once for the height and the
// drawing.
func (m *model) violLines() [][]string {
	out := make([][]string, len(m.violOf))
	for i, v := range m.violOf {
		lines := []string{"✗ " + v.Property + ": " + v.Message}
		if v.Because != "" {
			lines = append(lines, wrap("because "+v.Because, wrapColumns)...)
		}
		out[i] = lines
	}
	return out
}

func (m *model) svgHeight(vl [][]string) float64 {
	h := m.lanesBottom() + 20
	if len(vl) > 0 {
		h += 24
		for _, l := range vl {
			h += float64(len(l))*violLineH + 4
		}
	}
	return h + 10
}

// svg writes the <svg> element (no XML declaration: the HTML page
// inlines it).
func (m *model) svg(x *xw) {
	run := m.run
	vl := m.violLines()
	W, H := m.svgWidth(), m.svgHeight(vl)
	x.raw(`<svg xmlns="http://www.w3.org/2000/svg" class="ckpt-diagram"`)
	x.num("width", W)
	x.num("height", H)
	x.raw(` viewBox="0 0 `)
	x.f(W)
	x.raw(" ")
	x.f(H)
	x.raw(`"`)
	x.attr("data-algorithm", run.Algorithm)
	x.int("data-events", m.n)
	x.int("data-drawn", m.drawnCount())
	x.int("data-processes", len(run.Processes))
	// The HTML page lists violations beside the diagram and crops the
	// SVG's own list at this height.
	x.num("data-lanes-bottom", m.lanesBottom()+20)
	x.raw(">\n<title>")
	x.esc(m.title())
	x.raw("</title>\n<style><![CDATA[\n")
	x.raw(diagramCSS)
	x.raw("]]></style>\n<defs>\n")
	for _, s := range arrowStyles {
		x.raw(`<marker id="ah-` + s + `" class="ah ah-` + s + `" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="9" markerHeight="9" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z"/></marker>` + "\n")
	}
	x.raw(`<pattern id="hatch" patternUnits="userSpaceOnUse" width="8" height="8"><path d="M0 8 L8 0" class="hatch"/></pattern>` + "\n")
	x.raw("</defs>\n")
	m.header(x)
	m.legendSVG(x)
	m.axis(x)
	m.lanes(x)
	m.bandsSVG(x)
	m.intervals(x)
	m.rlines(x)
	m.messages(x)
	m.jumpsSVG(x)
	m.marks(x)
	m.rings(x)
	m.violList(x, vl)
	x.raw("</svg>\n")
}

func (m *model) drawnCount() int {
	c := 0
	for _, d := range m.drawn {
		if d {
			c++
		}
	}
	return c
}

func (m *model) title() string {
	name := m.run.Name
	if name == "" {
		name = m.run.Source
	}
	if name == "" {
		name = "run"
	}
	return "ckpt diagram: " + name + " (" + m.run.Algorithm + ")"
}

// summary is the one-line description under the title.
func (m *model) summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "algorithm %s · %d processes · %d events · %d failure", m.run.Algorithm, len(m.run.Processes), m.n, m.failures)
	if m.failures != 1 {
		b.WriteString("s")
	}
	if m.rep != nil {
		if m.rep.Valid {
			b.WriteString(" · verdict: valid")
		} else {
			fmt.Fprintf(&b, " · verdict: INVALID (%d violation", len(m.violOf))
			if len(m.violOf) != 1 {
				b.WriteString("s")
			}
			b.WriteString(")")
		}
	}
	return b.String()
}

// windowNote says what a windowed diagram leaves out, or "".
func (m *model) windowNote() string {
	if !m.windowed {
		return ""
	}
	s := fmt.Sprintf("Large run: showing %d of %d events — the start of the run and the events around %d of %d failures; hatched bands mark what is left out",
		m.drawnCount(), m.n, m.failShown, m.failures)
	if m.hidden > 0 {
		s += fmt.Sprintf("; %d message arrows cross a cut and are not drawn", m.hidden)
	}
	return s + "."
}

func (m *model) header(x *xw) {
	x.raw(`<g class="header"><text class="title" x="10" y="20">`)
	x.esc(m.title())
	x.raw(`</text><text class="summary" x="10" y="38">`)
	x.esc(m.summary())
	x.raw("</text>")
	if note := m.windowNote(); note != "" {
		x.raw(`<text class="window-note" id="window-note" x="520" y="20">`)
		x.esc(note)
		x.raw("</text>")
	}
	x.raw("</g>\n")
}

func (m *model) legendSVG(x *xw) {
	x.raw(`<g class="legend">`)
	for i, it := range legend {
		col, row := i%legendCols, i/legendCols
		x.raw(`<g class="legend-item"`)
		x.attr("data-item", it.class)
		x.raw(` transform="translate(`)
		x.f(10 + float64(col)*legendColW)
		x.raw(" ")
		x.f(legendTop + float64(row)*legendRowH)
		x.raw(`)">`)
		x.raw(it.sample)
		x.raw(`<text x="36" y="4">`)
		x.esc(it.label)
		x.raw("</text></g>")
	}
	x.raw("</g>\n")
}

// axis labels times along the top, leaving at least 60 px between labels.
func (m *model) axis(x *xw) {
	top := marginTop - 46
	bottom := m.lanesBottom()
	x.raw(`<g class="axis">`)
	last := -1e9
	for _, t := range m.ticks {
		if t.x-last < 60 {
			continue
		}
		last = t.x
		x.raw(`<line class="grid"`)
		x.num("x1", t.x)
		x.num("x2", t.x)
		x.num("y1", top)
		x.num("y2", bottom)
		x.raw(`/><text class="tick"`)
		x.num("x", t.x)
		x.num("y", top-4)
		x.raw(">")
		x.b = t.t.AppendJSON(x.b)
		x.raw("s</text>")
	}
	x.raw("</g>\n")
}

func (m *model) lanes(x *xw) {
	x.raw(`<g class="lanes">`)
	right := m.width - 40
	for p, name := range m.run.Processes {
		y := m.laneY(int32(p))
		x.raw(`<line class="lane"`)
		x.attr("data-p", name)
		x.num("x1", marginLeft-10)
		x.num("x2", right)
		x.num("y1", y)
		x.num("y2", y)
		x.raw(`/><text class="lane-label"`)
		x.num("x", 8)
		x.num("y", y+4)
		x.raw(">")
		x.esc(name)
		x.raw("</text>")
	}
	x.raw("</g>\n")
}

func (m *model) bandsSVG(x *xw) {
	if len(m.bands) == 0 {
		return
	}
	top := marginTop - 46
	bottom := m.lanesBottom()
	x.raw(`<g class="bands">`)
	for _, b := range m.bands {
		x.raw(`<rect class="band"`)
		x.num("x", b.x0)
		x.num("y", top)
		x.num("width", b.x1-b.x0)
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
		x.num("y", y-11)
		x.num("width", m.x[d.to]-m.x[d.from])
		x.num("height", 22)
		x.raw("><title>")
		x.esc(fmt.Sprintf("%s down from t=%ss to t=%ss", m.run.Processes[d.p], m.run.Events[d.from].T, m.run.Events[d.to].T))
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
		x.escBytes(m.describe(nil, h.from))
		x.raw("&#10;&#10;")
		x.escBytes(m.describe(nil, h.to))
		x.raw("</title></line>")
	}
	x.raw("</g>\n")
}

// pointXY is where a recovery-line point sits.
func (m *model) pointXY(pt linePoint) (float64, float64) {
	if pt.ev == trace.None {
		return marginLeft, m.laneY(pt.p)
	}
	return m.x[pt.ev], m.laneY(pt.p)
}

func (m *model) rlines(x *xw) {
	x.raw(`<g class="rlines">`)
	for _, l := range m.lines {
		if len(l.points) == 0 {
			continue
		}
		f := &m.run.Events[l.fail]
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
		x.esc(b.String())
		x.raw("</title></polyline>")
	}
	x.raw("</g>\n")
}

func (m *model) messages(x *xw) {
	x.raw(`<g class="messages">`)
	for _, a := range m.arrows {
		s, r := &m.run.Events[a.from], &m.run.Events[a.to]
		x1, y1 := m.x[a.from], m.laneY(s.P)
		x2, y2 := m.x[a.to], m.laneY(r.P)
		x.raw(`<line class="msg msg-` + a.style)
		if a.undone {
			x.raw(" undone")
		}
		x.raw(`"`)
		x.int("data-seq", int(a.from))
		x.int("data-to", int(a.to))
		x.num("x1", x1)
		x.num("y1", y1)
		x.num("x2", x2)
		x.num("y2", y2)
		x.raw(` marker-end="url(#ah-` + a.style + `)"><title>`)
		x.esc(m.msgName(s.Msg))
		x.raw(" copy ")
		x.b = strconv.AppendInt(x.b, int64(s.Copy), 10)
		x.raw(": ")
		x.raw(a.style)
		x.raw("&#10;")
		x.escBytes(m.describe(nil, a.from))
		x.raw("&#10;→ ")
		x.escBytes(m.describe(nil, a.to))
		x.raw("</title></line>")
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
		x.escBytes(m.describe(nil, c.from))
		x.raw("&#10;→ ")
		x.escBytes(m.describe(nil, c.to))
		x.raw("</title></line>")
	}
	x.raw("</g>\n")
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
		x1 := marginLeft
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

// jumpText explains a rollback: who went back where, how much it undid
// and why.
func (m *model) jumpText(j jump) []byte {
	e := &m.run.Events[j.ev]
	var b []byte
	b = append(b, m.run.Processes[e.P]...)
	if e.Kind == trace.Restart {
		b = append(b, " restarts from checkpoint "...)
	} else {
		b = append(b, " rolls back to checkpoint "...)
	}
	b = strconv.AppendInt(b, int64(e.Restore), 10)
	if j.ckpt != trace.None {
		c := &m.run.Events[j.ckpt]
		if c.Sn >= 0 {
			b = append(b, " (sn="...)
			b = strconv.AppendInt(b, int64(c.Sn), 10)
			b = append(b, ')')
		}
		if vt := m.run.VTOf(c); len(vt) > 0 {
			b = append(b, " vt="...)
			b = appendVT(b, vt)
		}
	}
	if e.Undone >= 0 {
		b = append(b, ", undoing "...)
		b = strconv.AppendInt(b, int64(e.Undone), 10)
		b = append(b, " ops"...)
	}
	if e.Pos >= 0 {
		b = append(b, ", keeping "...)
		b = strconv.AppendInt(b, int64(e.Pos), 10)
		b = append(b, " live"...)
	}
	b = append(b, "\nwhy: "...)
	switch {
	case e.Kind == trace.Restart:
		b = append(b, "it failed"...)
	case e.Cause == trace.CauseRequest:
		b = append(b, "a Rollback request"...)
	case e.Cause == trace.CauseMessage:
		b = append(b, "a message from a later recovery"...)
	case e.Cause == trace.CauseToken:
		b = append(b, "a token announced lost events its state depends on"...)
	default:
		b = append(b, "not recorded"...)
	}
	if f := e.Failure; f >= 0 && int(f) < m.n {
		b = append(b, " (failure #"...)
		b = strconv.AppendInt(b, int64(f), 10)
		b = append(b, " of "...)
		b = append(b, m.run.Processes[m.run.Events[f].P]...)
		b = append(b, ')')
	}
	b = append(b, "\n\n"...)
	return m.describe(b, j.ev)
}

// marks draws one mark per drawn slotted event, plus the implicit initial
// checkpoints.
func (m *model) marks(x *xw) {
	run := m.run
	x.raw(`<g class="events">`)
	explicit := make([]bool, len(run.Processes))
	for i := range run.Events {
		e := &run.Events[i]
		if e.Kind == trace.Checkpoint && e.Ckpt == 0 {
			explicit[e.P] = true
		}
	}
	for p := range run.Processes {
		if explicit[p] {
			continue
		}
		y := m.laneY(int32(p))
		x.raw(`<rect class="ckpt ckpt-initial"`)
		x.attr("data-p", run.Processes[p])
		x.num("x", marginLeft-4)
		x.num("y", y-8)
		x.raw(` width="8" height="16"><title>`)
		x.esc(run.Processes[p])
		x.raw(" initial checkpoint 0 (t=0, pos 0")
		if m.isMS() {
			x.raw(", sn 0")
		}
		x.raw(")</title></rect>")
		if m.isMS() {
			m.snLabel(x, marginLeft, y, 0)
		}
	}
	for i := range run.Events {
		if !m.drawn[i] {
			continue
		}
		e := &run.Events[i]
		if !slotted(e.Kind) {
			continue
		}
		m.mark(x, int32(i), e)
	}
	for _, b := range m.blocked {
		e := &run.Events[b]
		y := m.laneY(e.P)
		x.raw(`<path class="lost-mark"`)
		x.int("data-seq", int(b))
		x.raw(` d="M`)
		x.f(m.x[b] + 4)
		x.raw(" ")
		x.f(y - 12)
		x.raw(" l8 -8 m-8 0 l8 8")
		x.raw(`"><title>lost: `)
		x.escBytes(m.describe(nil, b))
		x.raw("</title></path>")
	}
	x.raw("</g>\n")
}

func (m *model) isMS() bool { return strings.HasPrefix(m.run.Algorithm, "ms") }

func (m *model) snLabel(x *xw, cx, y float64, sn int32) {
	x.raw(`<text class="sn"`)
	x.num("x", cx)
	x.num("y", y+21)
	x.raw(">")
	x.b = strconv.AppendInt(x.b, int64(sn), 10)
	x.raw("</text>")
}

func (m *model) mark(x *xw, i int32, e *trace.RunEvent) {
	cx, y := m.x[i], m.laneY(e.P)
	cls := ""
	if m.undone[i] {
		cls = " undone"
	}
	open := func(tag, class string) {
		x.raw("<" + tag + ` class="` + class + cls + `"`)
		x.int("data-seq", int(i))
	}
	closeTitle := func(tag string) {
		x.raw("><title>")
		x.escBytes(m.describe(nil, i))
		x.raw("</title></" + tag + ">")
	}
	circle := func(class string, r float64) {
		open("circle", class)
		x.num("cx", cx)
		x.num("cy", y)
		x.num("r", r)
		closeTitle("circle")
	}
	path := func(class string, d func()) {
		open("path", class)
		x.raw(` d="`)
		d()
		x.raw(`"`)
		closeTitle("path")
	}
	pt := func(a, b float64) {
		x.f(a)
		x.raw(" ")
		x.f(b)
	}
	switch e.Kind {
	case trace.Send:
		c := "ev ev-send"
		if e.Resend {
			c += " resend"
		}
		circle(c, 4)
	case trace.Recv:
		c := "ev ev-recv"
		if e.Via == trace.ViaLog {
			c += " via-log"
		}
		circle(c, 4)
	case trace.Internal:
		circle("ev ev-internal", 3.5)
	case trace.Checkpoint:
		t := e.CkptType.String()
		if t == "" {
			t = "basic"
		}
		if e.Ckpt == 0 {
			t = "initial"
		}
		c := "ckpt ckpt-" + t
		if m.discarded[i] {
			c += " discarded"
		}
		open("rect", c)
		x.num("x", cx-4)
		x.num("y", y-8)
		x.raw(` width="8" height="16"`)
		closeTitle("rect")
		if e.Sn >= 0 {
			m.snLabel(x, cx, y, e.Sn)
		}
	case trace.CheckpointSkipped:
		path("ev ev-skipped", func() {
			x.raw("M")
			pt(cx, y-6)
			x.raw(" V")
			x.f(y + 6)
		})
	case trace.Discard:
		path("ev ev-discard reason-"+e.Reason.String(), func() {
			x.raw("M")
			pt(cx-4, y-4)
			x.raw(" L")
			pt(cx+4, y+4)
			x.raw(" M")
			pt(cx-4, y+4)
			x.raw(" L")
			pt(cx+4, y-4)
		})
	case trace.Hold:
		path("ev ev-hold", func() {
			x.raw("M")
			pt(cx, y-5)
			x.raw(" L")
			pt(cx+5, y)
			x.raw(" L")
			pt(cx, y+5)
			x.raw(" L")
			pt(cx-5, y)
			x.raw(" z")
		})
	case trace.Fail:
		path("ev ev-fail", func() {
			x.raw("M")
			pt(cx-6, y-6)
			x.raw(" L")
			pt(cx+6, y+6)
			x.raw(" M")
			pt(cx-6, y+6)
			x.raw(" L")
			pt(cx+6, y-6)
		})
	case trace.Restart, trace.Rollback:
		path("ev ev-"+e.Kind.String(), func() {
			x.raw("M")
			pt(cx, y-9)
			x.raw(" V")
			x.f(y + 9)
		})
	case trace.Resume:
		path("ev ev-resume", func() {
			x.raw("M")
			pt(cx-3, y-5)
			x.raw(" L")
			pt(cx+4, y)
			x.raw(" L")
			pt(cx-3, y+5)
			x.raw(" z")
		})
	case trace.End:
		path("ev ev-end state-"+e.State.String(), func() {
			x.raw("M")
			pt(cx, y-7)
			x.raw(" V")
			x.f(y + 7)
		})
	case trace.Unconsumed:
		circle("ev ev-unconsumed", 3)
	default:
		circle("ev ev-other", 2.5)
	}
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
			x.raw(` r="9"><title>`)
			x.esc(m.violOf[v].Property + ": " + m.violOf[v].Message)
			x.raw("</title></circle>")
		}
	}
	x.raw("</g>\n")
}

func (m *model) violList(x *xw, vl [][]string) {
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
