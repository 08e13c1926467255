package diagram

import (
	"bytes"
	"cmp"
	"embed"
	"errors"
	"html/template"
	"io"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/ckpt-dev/ckpt/trace"
)

var (
	//go:embed assets/page.html
	pageHTML string
	//go:embed assets/page.css
	pageCSS string
	//go:embed assets/*.js
	jsFS embed.FS

	pageTmpl = template.Must(template.New("page").Parse(pageHTML))
)

// scripts are the page's script files, in the order they are joined into
// one function scope (each uses what the ones before it define).
var scripts = []string{"core.js", "layout.js", "render.js", "overview.js", "controls.js", "side.js", "page.js", "selftest.js"}

// pageJS is the page's script: the files of scripts in one IIFE.
func pageJS() string {
	var b strings.Builder
	b.WriteString("(function () {\n\"use strict\";\n")
	for _, f := range scripts {
		s, err := jsFS.ReadFile("assets/" + f)
		if err != nil {
			panic("diagram: missing embedded script " + f) // a build defect, caught by every test
		}
		b.Write(s)
	}
	b.WriteString("})();\n")
	return b.String()
}

// pageData feeds assets/page.html. The script writes what it derives
// from the panels' data: the violation list and, with two panels, the
// comparison (page.js).
type pageData struct {
	Title  string
	Panels []*panelJSON
	Legend []legendItem
	Defs   template.HTML
	Events template.HTML
	Data   template.JS
	CSS    template.CSS
	JS     template.JS
}

// HTMLPanels writes a page of one run, or of two runs of one trace (MS
// and PK) one above the other on a shared x axis, with a table comparing
// them and the ops they ran a different number of times outlined. A
// panel's deep links (#pk:seq=N) name it by its algorithm, so the runs
// are of different algorithms.
func HTMLPanels(w io.Writer, panels []Panel, opts Options) error {
	ms, err := buildPanels(panels, opts, DefaultPageMaxEvents)
	if err != nil {
		return err
	}
	d := pageData{
		Title:  pageTitle(ms),
		Legend: usedUnion(ms),
		CSS:    template.CSS(pageCSS + diagramCSS),
		JS:     template.JS(pageJS()),
	}
	var x xw
	defs(&x)
	d.Defs = template.HTML(x.b)
	data := pageJSON{Axis: ms[0].opts.Axis}
	for k := trace.Kind(0); k.String() != trace.Kind(255).String(); k++ {
		data.Kinds = append(data.Kinds, k.String())
	}
	for i, m := range ms {
		data.Panels = append(data.Panels, m.pageData())
		d.Events += eventsHTML(data.Panels[i].Events)
	}
	d.Panels = data.Panels
	b, err := json.Marshal(&data)
	if err != nil {
		return err
	}
	d.Data = template.JS(b)
	return pageTmpl.Execute(w, d)
}

// eventsHTML is the element holding a panel's events, a run-format line
// each. Outside a JSON string their quotes need no escaping; a '<' can
// only be in a string, where \u003c is the same text and can end no
// element.
func eventsHTML(lines []byte) template.HTML {
	if bytes.IndexByte(lines, '<') >= 0 {
		lines = bytes.ReplaceAll(lines, []byte("<"), []byte(`\u003c`))
	}
	return template.HTML(`<script type="application/x-ndjson" class="ckpt-events">` + string(lines) + "</script>\n")
}

// buildPanels builds each panel's model; with two, the names in the
// title come from the first.
func buildPanels(panels []Panel, opts Options, maxEvents int) ([]*model, error) {
	if len(panels) == 0 || len(panels) > 2 {
		return nil, errors.New("diagram: want one run, or two to compare")
	}
	var ms []*model
	for _, p := range panels {
		m, err := build(p.Run, p.Report, opts, maxEvents)
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	if len(ms) == 2 {
		ms[0].notes, ms[1].notes = diffNotes(ms[0], ms[1])
	}
	return ms, nil
}

// pageTitle names the run (its name, else its source) and its
// algorithms ("ms vs pk").
func pageTitle(ms []*model) string {
	var algs []string
	for _, m := range ms {
		algs = append(algs, m.run.Algorithm)
	}
	return "ckpt diagram: " + cmp.Or(ms[0].run.Name, ms[0].run.Source, "run") + " (" + strings.Join(algs, " vs ") + ")"
}
