package diagram

import (
	_ "embed"
	"fmt"
	"io"
	"strings"
)

//go:embed assets/diagram.css
var diagramCSS string

// SVGPanels writes one run, or two runs of one trace (MS and PK) one
// above the other, as a standalone SVG: title, summary lines, the legend
// of what is drawn, then each panel; with two, the ops they ran a
// different number of times are outlined.
func SVGPanels(w io.Writer, panels []Panel, opts Options) error {
	ms, err := buildPanels(panels, opts, DefaultMaxEvents)
	if err != nil {
		return err
	}
	W := minDocW
	for _, m := range ms {
		m.layout()
		W = max(W, m.geo.width)
	}
	var lines []string
	for _, m := range ms {
		lines = append(lines, m.summary())
		if n := m.windowNote(); n != "" {
			lines = append(lines, n)
		}
	}
	// The legend flows within a screen's width, so a wide diagram's
	// legend is read without scrolling.
	rows := legendRows(usedUnion(ms), min(W, legendMaxW)-20)
	y := titleY + float64(len(lines))*summaryH + 14
	legendTop := y
	y += float64(len(rows))*legendRowH + 8
	for _, m := range ms {
		if len(ms) > 1 {
			y += panelHead
		}
		m.geo.top = y + axisH
		y = m.svgHeight()
	}
	var x xw
	x.raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	svgHead(&x, ms[0], W, y+10, pageTitle(ms), lines)
	legendSVG(&x, rows, legendTop)
	for _, m := range ms {
		m.panel(&x, len(ms) > 1)
	}
	x.raw("</svg>\n")
	_, err = w.Write(x.b)
	return err
}

var arrowStyles = []string{styleNormal, styleOrphan, styleLost, styleDiscarded, styleReplayed, styleResent, "ctl", "jump"}

// Vertical layout of the document, px.
const (
	titleY     = 22.0
	summaryH   = 20.0
	legendRowH = 22.0
	panelHead  = 24.0 // a panel's own title, when there are several
	axisH      = 78.0 // axis caption and ticks above the first lane
	violLineH  = 17.0
	minDocW    = 900.0
	legendMaxW = 1200.0
)

// defs writes the arrow heads and the hatch of left-out stretches, which
// the diagram and the legend share.
func defs(x *xw) {
	x.raw("<defs>\n")
	for _, s := range arrowStyles {
		x.raw(`<marker id="ah-` + s + `" class="ah ah-` + s + `" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="10" markerHeight="10" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z"/></marker>` + "\n")
	}
	x.raw(`<pattern id="hatch" patternUnits="userSpaceOnUse" width="8" height="8"><path d="M0 8 L8 0" class="hatch"/></pattern>` + "\n")
	x.raw("</defs>\n")
}

// svgHead opens the <svg> element of size W×H, described by the first
// panel m0, and writes the title and summary lines.
func svgHead(x *xw, m0 *model, W, H float64, title string, lines []string) {
	x.raw(`<svg xmlns="http://www.w3.org/2000/svg" class="ckpt-diagram"`)
	x.nums("width height", W, H)
	x.raw(` viewBox="0 0 `)
	x.coords(W, H)
	x.raw(`"`)
	x.attr("data-algorithm", m0.run.Algorithm)
	x.nums("data-events data-drawn data-processes", float64(m0.n), float64(m0.shown), float64(len(m0.run.Processes)))
	x.attr("data-axis", m0.opts.Axis)
	x.raw(">\n<title>")
	x.esc(title)
	x.raw("</title>\n<style><![CDATA[\n" + diagramCSS + "]]></style>\n")
	defs(x)
	x.raw(`<g class="header">`)
	x.text("title", 10, titleY, title)
	for i, l := range lines {
		y := titleY + float64(i+1)*summaryH
		if !strings.HasPrefix(l, "Large run") {
			x.text("summary", 10, y, l)
			continue
		}
		x.raw(`<text class="window-note"`)
		x.nums("x y", 10, y)
		x.raw(">")
		x.esc(l)
		x.raw("</text>")
	}
	x.raw("</g>\n")
}

// svgHeight is where the panel ends, its violation list included.
func (m *model) svgHeight() float64 {
	h := m.lanesBottom() + 10
	if vl := m.violLines(); len(vl) > 0 {
		h += 30
		for _, l := range vl {
			h += float64(len(l))*violLineH + 4
		}
	}
	return h
}

// panel draws one run: its heading (when compared), axis, lanes and
// everything on them, then its violation list.
func (m *model) panel(x *xw, heading bool) {
	x.raw(`<g class="panel"`)
	x.attr("data-algorithm", m.run.Algorithm)
	x.raw(">\n")
	if heading {
		x.text("panel-title", 10, m.geo.top-axisH-6, algoName(m.run.Algorithm)+" — "+m.summary())
		x.raw("\n")
	}
	m.axis(x)
	m.lanes(x)
	m.bandsSVG(x)
	m.intervals(x)
	m.rlines(x)
	m.messages(x)
	m.jumpsSVG(x)
	m.marks(x)
	m.rings(x)
	m.textLabels(x)
	m.violList(x)
	x.raw("</g>\n")
}

// summary is the one-line description under the title.
func (m *model) summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "algorithm %s · %d processes · %d events · %s", m.run.Algorithm, len(m.run.Processes), m.n, plural(m.failures, "failure"))
	if m.rep != nil {
		if m.rep.Valid {
			b.WriteString(" · verdict: valid, no violations")
		} else {
			fmt.Fprintf(&b, " · verdict: INVALID (%s)", plural(len(m.violOf), "violation"))
		}
	}
	return b.String()
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// windowNote says what a windowed diagram leaves out, or "".
func (m *model) windowNote() string {
	if !m.windowed {
		return ""
	}
	what := "the start of the run"
	switch {
	case m.failShown > 0:
		what += fmt.Sprintf(" and the events around %d of %s", m.failShown, plural(m.failures, "failure"))
	case m.failures > 0:
		what += fmt.Sprintf(", not the events around its %s", plural(m.failures, "failure"))
	}
	s := fmt.Sprintf("Large run: showing %d of %d events — %s; hatched bands mark what is left out", m.shown, m.n, what)
	if m.hidden > 0 {
		s += map[bool]string{true: "; 1 message arrow crosses a cut and is not drawn",
			false: fmt.Sprintf("; %d message arrows cross a cut and are not drawn", m.hidden)}[m.hidden == 1]
	}
	return s + "."
}

// axisCaption says what x means, so the axis never passes for a time
// scale it is not.
func (m *model) axisCaption() string {
	if m.opts.Axis == AxisTime {
		return fmt.Sprintf("x: real time, to scale (1 s = %s px); events at one instant on a lane are spread %g px apart", fmtNum(m.geo.scale), tieGap)
	}
	return "x: logical order (happened-before: each event right of the one before it on its lane and of the send it receives) — not a time scale; hover for times"
}

func fmtNum(v float64) string {
	var x xw
	if v < 10 {
		x.b = fmt.Appendf(x.b, "%.3g", v)
	} else {
		x.f(v)
	}
	return string(x.b)
}
