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
	// The panels are drawn first: each ends where its violation list
	// does, and the document's height is where the last one ends.
	var panelsSVG xw
	for _, m := range ms {
		if len(ms) > 1 {
			y += panelHead
		}
		m.geo.top = y + axisH
		y = m.panel(&panelsSVG, len(ms) > 1)
	}
	var x xw
	x.raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	svgHead(&x, ms[0], W, y+10, pageTitle(ms), lines)
	legendSVG(&x, rows, legendTop)
	x.b = append(x.b, panelsSVG.b...)
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
		x.put(`<marker id="ah-%v" class="ah ah-%[1]v" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="10" markerHeight="10" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z"/></marker>`+"\n", s)
	}
	x.raw(`<pattern id="hatch" patternUnits="userSpaceOnUse" width="8" height="8"><path d="M0 8 L8 0" class="hatch"/></pattern>` + "\n")
	x.raw("</defs>\n")
}

// svgHead opens the <svg> element of size W×H, described by the first
// panel m0, and writes the title and summary lines.
func svgHead(x *xw, m0 *model, W, H float64, title string, lines []string) {
	x.put(`<svg xmlns="http://www.w3.org/2000/svg" class="ckpt-diagram" width="%v" height="%v" viewBox="0 0 %[1]v %[2]v"`, W, H)
	x.put(` data-algorithm="%v" data-events="%v" data-drawn="%v" data-processes="%v" data-axis="%v"`, m0.run.Algorithm, m0.n, m0.shown, len(m0.run.Processes), m0.opts.Axis)
	x.raw(">\n<title>")
	x.esc(title)
	x.raw("</title>\n<style><![CDATA[\n" + diagramCSS + "]]></style>\n")
	defs(x)
	x.raw(`<g class="header">`)
	x.text("title", 10, titleY, title)
	for i, l := range lines {
		class := "summary"
		if strings.HasPrefix(l, "Large run") {
			class = "window-note"
		}
		x.text(class, 10, titleY+float64(i+1)*summaryH, l)
	}
	x.raw("</g>\n")
}

// panel draws one run: its heading (when compared), axis, lanes and
// everything on them, then its violation list. It returns where the
// panel ends.
func (m *model) panel(x *xw, heading bool) float64 {
	x.put(`<g class="panel" data-algorithm="%v">`+"\n", m.run.Algorithm)
	if heading {
		x.text("panel-title", 10, m.geo.top-axisH-6, algoName(m.run.Algorithm)+" — "+m.summary())
		x.raw("\n")
	}
	// Each layer is a group of its own, drawn over the ones before it.
	group := func(class string, draw func(*xw)) {
		x.put(`<g class="%v">`, class)
		draw(x)
		x.raw("</g>\n")
	}
	group("axis", m.axis)
	group("lanes", m.lanes)
	if len(m.gaps) > 0 {
		group("bands", m.bands)
	}
	group("intervals", m.intervals)
	group("rlines", m.rlines)
	group("messages", m.messages)
	group("controls", m.controls)
	group("jumps", m.jumpsSVG)
	group("events", m.marks)
	group("violations", m.rings)
	group("labels", m.textLabels)
	bottom := m.violList(x)
	x.raw("</g>\n")
	return bottom
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
	if v < 10 {
		return fmt.Sprintf("%.3g", v)
	}
	return num(v)
}
