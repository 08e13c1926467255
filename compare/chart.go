package compare

import (
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/ckpt-dev/ckpt/pipeline"
)

// The chart's geometry, in SVG user units (pixels at 100% zoom).
const (
	chartW, chartH  = 960, 580
	plotL, plotR    = 84, 720
	plotT, plotB    = 96, 496
	zeroLaneH       = 34 // below a log axis: where zeros are drawn
	legendX, legend = 748, 116
	legendStep      = 24
)

// style is one protocol's colour and marker. The colours are the
// Okabe–Ito palette (distinguishable with colour-blindness), and every
// line also has its own marker, so the chart reads in grey too.
type style struct {
	color, marker string
}

var styles = map[string]style{
	Uncoordinated: {"#555555", "x"},
	"bcs":         {"#E69F00", "square"},
	"fdas":        {"#D55E00", "triangle"},
	"hmnr":        {"#009E73", "diamond"},
	"coordinated": {"#56B4E9", "down"},
	"ms":          {"#0072B2", "circle"},
	"pk":          {"#CC79A7", "plus"},
}

// series is one protocol's line: its rows, one per ratio, with a point
// at each that has a forced-per-basic figure (some basic checkpoint).
type series struct {
	name    string
	rows    []SweepRow
	allZero bool
}

// chart holds what Chart draws.
type chart struct {
	o        SweepOptions
	series   []series
	xs, ys   scale
	zeroLane bool
}

// Chart draws the sweep as a standalone SVG line chart: forced
// checkpoints per basic checkpoint against ICT/MTT, one line per
// protocol, log axes where the values span orders of magnitude (zeros
// then on their own lane), with axis titles, grid, legend and a
// description of the workload. Output is deterministic.
func Chart(w io.Writer, o SweepOptions, rows []SweepRow) error {
	c := newChart(o, rows)
	var b strings.Builder
	c.frame(&b)
	c.axes(&b)
	for i := range c.series {
		c.line(&b, &c.series[i])
	}
	c.legendBox(&b)
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func newChart(o SweepOptions, rows []SweepRow) *chart {
	if o.Protocols == nil {
		o.Protocols = Protocols
	}
	c := &chart{o: o}
	var vals []float64
	for _, name := range o.Protocols {
		s := series{name: name, allZero: true}
		for _, r := range rows {
			if r.Protocol != name {
				continue
			}
			s.rows = append(s.rows, r)
			if v := r.ForcedPerBasic; v != nil {
				vals = append(vals, *v)
				s.allZero = s.allZero && *v == 0
			}
		}
		c.series = append(c.series, s)
	}
	c.xs = xScale(o.Ratios, plotL+16, plotR-16)
	c.ys, c.zeroLane = yScale(vals, plotB, plotT+8)
	if c.zeroLane {
		c.ys.a = plotB - zeroLaneH
	}
	return c
}

// frame opens the SVG: size, accessible title and description, font,
// background, the chart's title and the workload it shows.
func (c *chart) frame(b *strings.Builder) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="Helvetica, Arial, sans-serif" font-size="13" role="img" aria-labelledby="title desc">`+"\n",
		chartW, chartH, chartW, chartH)
	title := "Forced checkpoints per basic checkpoint"
	fmt.Fprintf(b, "<title id=\"title\">%s</title>\n<desc id=\"desc\">%s</desc>\n", title, html.EscapeString(c.o.Workload()))
	fmt.Fprintf(b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", chartW, chartH)
	fmt.Fprintf(b, `<text x="%d" y="30" font-size="18" font-weight="bold" fill="#222">%s</text>`+"\n", plotL, title)
	for i, l := range c.o.workloadLines() {
		fmt.Fprintf(b, `<text class="subtitle" x="%d" y="%d" font-size="12" fill="#555">%s</text>`+"\n", plotL, 52+16*i, html.EscapeString(l))
	}
}

// workloadLines describe the sweep, in two lines.
func (o SweepOptions) workloadLines() []string {
	return []string{
		fmt.Sprintf("Classic workload: %d processes on a complete graph, each sending every MTT = %s s on average (exponential);", o.Procs, o.MTT),
		fmt.Sprintf("basic checkpoint intervals uniform on [ICT/2, 3·ICT/2]; %s per process, %s per point.",
			pipeline.Plural(o.Intervals, "basic interval", "basic intervals"), pipeline.Plural(o.Seeds, "seed", "seeds")),
	}
}

// Workload describes the sweep in one line, as the chart's description
// does (`ckpt compare --sweep` titles its table with it).
func (o SweepOptions) Workload() string { return strings.Join(o.workloadLines(), " ") }

// axes draws the grid, the ticks and their labels, the zero lane and
// the axis titles.
func (c *chart) axes(b *strings.Builder) {
	b.WriteString(`<g id="axes" stroke="#dddddd" stroke-width="1">` + "\n")
	for _, r := range c.o.Ratios {
		x := c.xs.at(r)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d"/>`+"\n", x, plotT, x, plotB)
	}
	for _, v := range c.ys.yTicks() {
		y := c.ys.at(v)
		fmt.Fprintf(b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f"/>`+"\n", plotL, y, plotR, y)
	}
	b.WriteString("</g>\n")
	fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#333"/>`+"\n", plotL, plotT, plotR-plotL, plotB-plotT)
	b.WriteString(`<g id="ticks" fill="#333" font-size="12">` + "\n")
	for _, r := range c.o.Ratios {
		fmt.Fprintf(b, `<text class="xtick" x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", c.xs.at(r), plotB+18, label(r))
	}
	for _, v := range c.ys.yTicks() {
		fmt.Fprintf(b, `<text class="ytick" x="%d" y="%.1f" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n", plotL-8, c.ys.at(v), label(v))
	}
	if c.zeroLane {
		c.zeroLaneAxis(b)
	}
	b.WriteString("</g>\n")
	xt := "ICT / MTT: mean basic checkpoint interval, in mean times between sends"
	yt := "forced checkpoints per basic checkpoint"
	if c.xs.log {
		xt += " (log scale)"
	}
	if c.ys.log {
		yt += " (log scale)"
	}
	fmt.Fprintf(b, `<text id="xtitle" x="%d" y="%d" text-anchor="middle" fill="#222">%s</text>`+"\n", (plotL+plotR)/2, plotB+44, xt)
	fmt.Fprintf(b, `<text id="ytitle" transform="translate(24 %d) rotate(-90)" text-anchor="middle" fill="#222">%s</text>`+"\n", (plotT+plotB)/2, yt)
}

// zeroLaneAxis labels the zero lane and marks the break between it and
// the log axis, which has no zero.
func (c *chart) zeroLaneAxis(b *strings.Builder) {
	y := float64(plotB - zeroLaneH/2)
	fmt.Fprintf(b, `<text class="ytick" x="%d" y="%.1f" text-anchor="end" dominant-baseline="middle">0</text>`+"\n", plotL-8, y)
	brk := float64(plotB - zeroLaneH + 6)
	fmt.Fprintf(b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#999" stroke-dasharray="4 4"/>`+"\n", plotL, brk, plotR, brk)
	fmt.Fprintf(b, `<path d="M%d %.1f l8 -5 M%d %.1f l8 -5" stroke="#333" fill="none"/>`+"\n", plotL-4, brk+4, plotL-4, brk)
}

// yAt is the pixel of a plotted value: on the zero lane for 0 when the
// axis is logarithmic.
func (c *chart) yAt(v float64) float64 {
	if v <= 0 && c.ys.log {
		return float64(plotB - zeroLaneH/2)
	}
	return c.ys.at(v)
}

// line draws one series: its segments (broken where a point is absent)
// and a marker at every point, with a tooltip.
func (c *chart) line(b *strings.Builder, s *series) {
	st := styles[s.name]
	fmt.Fprintf(b, `<g class="series" data-protocol="%s" stroke="%s" fill="%s">`+"\n", html.EscapeString(s.name), st.color, st.color)
	var pts []string
	flush := func() {
		if len(pts) > 1 {
			fmt.Fprintf(b, `<polyline fill="none" stroke-width="2.2" points="%s"/>`+"\n", strings.Join(pts, " "))
		}
		pts = pts[:0]
	}
	for _, r := range s.rows {
		if r.ForcedPerBasic == nil {
			flush()
			continue
		}
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", c.xs.at(r.Ratio), c.yAt(*r.ForcedPerBasic)))
	}
	flush()
	for _, r := range s.rows {
		if v := r.ForcedPerBasic; v != nil {
			x, y := c.xs.at(r.Ratio), c.yAt(*v)
			fmt.Fprintf(b, `<g><title>%s, ICT/MTT %s: %.3f forced per basic</title>%s</g>`+"\n",
				html.EscapeString(s.name), label(r.Ratio), *v, marker(st.marker, x, y))
		}
	}
	b.WriteString("</g>\n")
}

// marker draws a 9-pixel marker of the given shape centred on (x, y).
func marker(shape string, x, y float64) string {
	switch shape {
	case "square":
		return fmt.Sprintf(`<rect x="%.1f" y="%.1f" width="8" height="8"/>`, x-4, y-4)
	case "triangle":
		return fmt.Sprintf(`<path d="M%.1f %.1f l5 9 h-10 z"/>`, x, y-5)
	case "down":
		return fmt.Sprintf(`<path d="M%.1f %.1f l5 -9 h-10 z"/>`, x, y+5)
	case "diamond":
		return fmt.Sprintf(`<path d="M%.1f %.1f l5 5 l-5 5 l-5 -5 z"/>`, x, y-5)
	case "x":
		return fmt.Sprintf(`<path d="M%.1f %.1f l8 8 m0 -8 l-8 8" stroke-width="2.2"/>`, x-4, y-4)
	case "plus":
		return fmt.Sprintf(`<path d="M%.1f %.1f h10 m-5 -5 v10" stroke-width="2.2"/>`, x-5, y)
	}
	return fmt.Sprintf(`<circle cx="%.1f" cy="%.1f" r="4.5"/>`, x, y)
}

// legendBox lists the protocols with their line and marker; those that
// force nothing say so (their lines lie on 0, over each other).
func (c *chart) legendBox(b *strings.Builder) {
	b.WriteString(`<g id="legend">` + "\n")
	fmt.Fprintf(b, `<text x="%d" y="%d" font-weight="bold" fill="#222">protocol</text>`+"\n", legendX, legend-14)
	var zero []string // the series that are 0 wherever they are defined
	for i, s := range c.series {
		if s.allZero {
			zero = append(zero, s.name)
		}
		st := styles[s.name]
		y := float64(legend + i*legendStep)
		fmt.Fprintf(b, `<g class="entry" stroke="%s" fill="%s"><line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke-width="2.2"/>%s</g>`+"\n",
			st.color, st.color, legendX, y, legendX+28, y, marker(st.marker, float64(legendX+14), y))
		fmt.Fprintf(b, `<text class="legend-label" x="%d" y="%.1f" dominant-baseline="middle" fill="#222">%s</text>`+"\n", legendX+36, y, html.EscapeString(s.name))
	}
	if len(zero) > 0 {
		y := legend + len(c.series)*legendStep + 8
		verb := "forces"
		if len(zero) > 1 {
			verb = "force"
		}
		lines := []string{strings.Join(zero, ", "), verb + " no checkpoint: on 0."}
		for i, l := range lines {
			fmt.Fprintf(b, `<text class="legend-note" x="%d" y="%d" font-size="12" fill="#555">%s</text>`+"\n", legendX, y+16*i, html.EscapeString(l))
		}
	}
	b.WriteString("</g>\n")
}
