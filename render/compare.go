package render

import (
	"fmt"
	"io"
	"strconv"

	"github.com/ckpt-dev/ckpt/compare"
	"github.com/ckpt-dev/ckpt/report"
)

// CompareFormats are the formats of `ckpt compare`: a comparison is no
// test suite, so no junit.
var CompareFormats = []Format{Text, JSON, Markdown}

// Compare writes `ckpt compare`'s tables in format f (text, json or
// markdown). JSON is one array of every row of every table. Quiet
// writes one line per trace and protocol, for scripts: FILE, protocol,
// basic, forced, useless, piggyback bytes and control messages,
// tab-separated — the JSON's "file", "protocol", "basic", "forced",
// "useless", "piggyback_bytes" and "control_messages".
//
// A file that could not be compared (Table.Error) is reported in its
// place, as verify reports one: a heading with the message, an object
// {"file", "verdict": "error", "error"} in the JSON array, and
// "FILE\t-\terror" with Quiet.
func Compare(w io.Writer, f Format, tables []compare.Table, opts Options) error {
	var lines [][]string
	rows := []any{}
	n := strconv.Itoa
	for _, t := range tables {
		if t.Error != "" {
			lines = append(lines, []string{t.File, "-", "error"})
			rows = append(rows, compareErrorEntry{File: t.File, Verdict: string(report.VerdictError), Error: t.Error})
		}
		for _, r := range t.Rows {
			lines = append(lines, []string{r.File, r.Protocol, n(r.Basic), n(r.Forced), n(r.Useless), strconv.FormatInt(r.PiggybackBytes, 10), n(r.ControlMessages)})
			rows = append(rows, r)
		}
	}
	switch {
	case opts.Quiet:
		return writeLines(w, lines)
	case f == JSON:
		return WriteJSON(w, rows)
	}
	var doc []block
	for i := range tables {
		doc = append(doc, compareBlocks(&tables[i])...)
	}
	return writeDoc(w, f, doc, false)
}

// compareErrorEntry is a file compare could not compare, in the JSON
// array: verify's error entry's fields.
type compareErrorEntry struct {
	File    string `json:"file"`
	Verdict string `json:"verdict"`
	Error   string `json:"error"`
}

// compareHeader is the header of a comparison table.
var compareHeader = []string{"protocol", "basic", "forced", "forced/basic", "useless", "piggyback B/msg", "control msgs", "blocked s", "undone/failure mean", "max"}

// compareBlocks are one trace's caption, table and note.
func compareBlocks(t *compare.Table) []block {
	if t.Error != "" {
		return []block{{kind: heading, level: 3, text: fmt.Sprintf("%s — ERROR: not compared", t.File), tone: bad}, {kind: para, text: t.Error}}
	}
	title := fmt.Sprintf("%s — %s, %s", t.File, plural(t.Processes, "process", "processes"), plural(t.Events, "event", "events"))
	if len(t.Rows) > 0 && t.Rows[0].Stripped > 0 {
		title += " (" + plural(t.Rows[0].Stripped, "fail event", "fail events") + " left out: failure-free placement)"
	}
	tb := &table{header: compareHeader, right: numeric(len(compareHeader)), dense: true}
	for k := range t.Rows {
		tb.rows = append(tb.rows, row(compareCells(&t.Rows[k])...))
	}
	doc := []block{{kind: heading, level: 3, text: title}, {kind: tableBlock, table: tb, tight: true}}
	if t.Points > 0 {
		doc = append(doc, block{kind: para, tight: true, text: fmt.Sprintf("Ops undone per failure, over one failure at each of %d failure points: ms and pk replay each failure and recover (ckpt explore --failures 1 --strip-failures); the others by Wang's maximum consistent recovery line over the checkpoints they placed before it (docs/protocols.md).", t.Points)})
	}
	for _, r := range t.Rows {
		if r.Note != "" {
			doc = append(doc, block{kind: para, tight: true, text: "Note: " + r.Note + "."})
		}
	}
	return doc
}

// numeric is the alignment of a table whose key column is a label and
// whose others are numbers.
func numeric(n int) []bool {
	right := make([]bool, n)
	for i := 1; i < n; i++ {
		right[i] = true
	}
	return right
}

// ratio writes v to prec decimals, or "–" when it is absent (nothing to
// divide by).
func ratio(v *float64, prec int) string {
	if v == nil {
		return "–"
	}
	return strconv.FormatFloat(*v, 'f', prec, 64)
}

// compareCells are r's figures in header order.
func compareCells(r *compare.Row) []string {
	mean, most := "–", "–"
	if pf := r.PerFailure; pf != nil && pf.Failures > 0 {
		mean, most = strconv.FormatFloat(pf.Mean, 'f', 2, 64), strconv.Itoa(pf.Max)
	}
	return []string{r.Protocol, strconv.Itoa(r.Basic), strconv.Itoa(r.Forced), ratio(r.ForcedPerBasic, 2),
		strconv.Itoa(r.Useless), ratio(r.PiggybackPerMessage, 1), strconv.Itoa(r.ControlMessages),
		r.Blocked.String(), mean, most}
}

// Sweep writes `ckpt compare --sweep`'s forced checkpoints per basic
// checkpoint as a table of ratios by protocols (text, markdown), or
// every row with its counts (json).
func Sweep(w io.Writer, f Format, o compare.SweepOptions, rows []compare.SweepRow) error {
	if o.Protocols == nil {
		o.Protocols = compare.Protocols
	}
	if f == JSON {
		return WriteJSON(w, nonNil(rows)) // [] for no rows, as every JSON list
	}
	// The ratios are numbers: right-aligned in markdown; text sets the
	// key column left, as a row label.
	tb := &table{header: append([]string{"ICT/MTT"}, o.Protocols...), right: numeric(len(o.Protocols) + 1), dense: true}
	tb.right[0] = true
	for i, sr := range rows {
		if i%len(o.Protocols) == 0 {
			tb.rows = append(tb.rows, row(strconv.FormatFloat(sr.Ratio, 'g', 4, 64)))
		}
		last := &tb.rows[len(tb.rows)-1]
		*last = append(*last, cell{text: ratio(sr.ForcedPerBasic, 2)})
	}
	doc := []block{{kind: heading, level: 3, text: "Forced checkpoints per basic checkpoint. " + o.Workload()}, {kind: tableBlock, table: tb, tight: true}}
	return writeDoc(w, f, doc, false)
}
