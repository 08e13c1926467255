package diagram

import (
	_ "embed"
	"html/template"
	"io"
	"strconv"
	"strings"

	"github.com/ckpt-dev/ckpt/consistency/report"
	"github.com/ckpt-dev/ckpt/trace"
)

var (
	//go:embed assets/page.html
	pageHTML string
	//go:embed assets/page.css
	pageCSS string
	//go:embed assets/diagram.js
	diagramJS string

	pageTmpl = template.Must(template.New("page").Parse(pageHTML))
)

// pageData feeds assets/page.html.
type pageData struct {
	Title      string
	Summary    string
	Window     string
	Properties []report.Property
	Violations []pageViolation
	SVG        template.HTML
	CSS        template.CSS
	JS         template.JS
}

type pageViolation struct {
	Index    int
	Property string
	Message  string
	Because  string
	// Seqs are the drawn witness events, space-separated; Missing says
	// how many witnesses a windowed diagram does not show.
	Seqs    string
	Missing int
}

// HTML writes run as one self-contained HTML page: the SVG diagram
// inline, hover details for every event, zoom and pan, and the
// violation list, which highlights a violation's events when clicked. It
// loads nothing from the network. rep may be nil.
func HTML(w io.Writer, run *trace.Run, rep *report.Report, opts Options) error {
	m, err := build(run, rep, opts, DefaultPageMaxEvents)
	if err != nil {
		return err
	}
	var x xw
	svgDoc(&x, []*model{m}, m.title())
	d := pageData{
		Title:   m.title(),
		Summary: m.summary(),
		Window:  m.windowNote(),
		// The SVG is built by xw, which escapes every piece of input text.
		SVG: template.HTML(x.b),
		CSS: template.CSS(pageCSS),
		JS:  template.JS(diagramJS),
	}
	if rep != nil {
		d.Properties = rep.Properties
	}
	for i, v := range m.violOf {
		seqs := make([]string, len(m.violSeqs[i]))
		for k, s := range m.violSeqs[i] {
			seqs[k] = strconv.Itoa(int(s))
		}
		d.Violations = append(d.Violations, pageViolation{
			Index: i, Property: v.Property, Message: v.Message, Because: v.Because,
			Seqs: strings.Join(seqs, " "), Missing: len(v.Seqs) - len(m.violSeqs[i]),
		})
	}
	return pageTmpl.Execute(w, d)
}
