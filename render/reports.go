package render

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ckpt-dev/ckpt/report"
)

// Reports writes verify's, check's and report's reports to w in format
// f (the zero Format is text, the default). Reports of one file stay
// together, files in the order they first appear; text and markdown
// close (markdown: open) with a summary table when there are several.
func Reports(w io.Writer, f Format, reports []report.Report, opts Options) error {
	f, err := orText(f)
	if err != nil {
		return err
	}
	reports = slices.Clone(reports)
	for i := range reports {
		reports[i] = report.Judged(reports[i], opts.Strict)
	}
	if opts.Quiet {
		rows := make([][]string, len(reports))
		for i := range reports {
			rows[i] = []string{reports[i].File, cmp.Or(reports[i].Algorithm, "-"), string(reports[i].Verdict)}
		}
		return writeLines(w, rows)
	}
	switch f {
	case JSON:
		return WriteJSON(w, reportsJSON(reports))
	case JUnit:
		return writeJUnit(w, reportsJUnit(reports, opts.Strict))
	}
	doc := document(reports, opts.Full)
	// A CI job summary is read from the top: the summary table, when
	// there is one, comes first.
	if n := len(doc); f == Markdown && len(reports) > 1 {
		doc = append(doc[n-2:n:n], doc[:n-2]...)
	}
	return writeDoc(w, f, doc, opts.Color)
}

// document builds the blocks of reports. Reports of one file stay
// together (in the order the files first appear) so that a comparison of
// the algorithms can follow them.
// The reports must be judged (Reports does it).
func document(reports []report.Report, full bool) []block {
	var doc []block
	for _, g := range groupByFile(reports) {
		var checked []int
		for _, i := range g {
			rb := reportBlocks(&reports[i], full)
			rb[0].fold = reports[i].Verdict == report.VerdictValid && len(reports) > 1
			doc = append(doc, rb...)
			if reports[i].Verdict != report.VerdictError {
				checked = append(checked, i)
			}
		}
		if full && len(checked) > 1 {
			doc = append(doc, comparisonBlocks(reports, checked)...)
		}
	}
	if len(reports) > 1 {
		doc = append(doc, summaryBlocks(reports)...)
	}
	return doc
}

// groupByFile returns the indexes of reports grouped by file, files in
// order of first appearance, reports of a file in input order.
func groupByFile(reports []report.Report) [][]int {
	var groups [][]int
	at := make(map[string]int, len(reports))
	for i := range reports {
		g, ok := at[reports[i].File]
		if !ok {
			g = len(groups)
			at[reports[i].File] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	return groups
}

func statusTone(s report.Status) tone {
	switch s {
	case report.Pass:
		return good
	case report.Fail:
		return bad
	default:
		return warn
	}
}

// reportHeading is "FILE · ALGORITHM · VERDICT — summary" (no algorithm
// part for a file that could not be read).
func reportHeading(r *report.Report) block {
	word, t := verdictWord(r.Verdict)
	name := r.File
	if r.Algorithm != "" {
		name += " · " + r.Algorithm
	}
	return block{
		kind: heading, level: 1, code: r.File, tone: t,
		text: fmt.Sprintf("%s · %s — %s", name, word, verdictSummary(r)),
	}
}

func reportBlocks(r *report.Report, full bool) []block {
	doc := append([]block{reportHeading(r)}, verdictBlocks(r)...)
	if r.Verdict == report.VerdictError {
		return doc
	}
	doc = append(doc, block{kind: tableBlock, table: verdictTable(r)})
	if items := violationItems(r.Properties); len(items) > 0 {
		doc = append(doc,
			block{kind: heading, level: 2, text: "Violations"},
			block{kind: list, numbered: true, items: items})
	}
	if !full {
		return doc
	}
	used := make([]bool, len(r.Baseline.Uncoordinated.Line))
	for i := range r.Recoveries {
		doc = append(doc, recoveryBlocks(r, i, used)...)
	}
	if len(r.Recoveries) > 0 {
		doc = append(doc, block{kind: para, text: legend})
	}
	doc = append(doc, baselineBlocks(r, used)...)
	doc = append(doc,
		block{kind: heading, level: 2, text: "Statistics"},
		block{kind: tableBlock, table: statsTable(r)})
	return doc
}

func verdictTable(r *report.Report) *table {
	tb := &table{header: []string{"property", "status", "violations", "note"}, right: []bool{false, false, true, false}, notes: 3}
	for i := range r.Properties {
		p := &r.Properties[i]
		tb.rows = append(tb.rows, []cell{{text: p.Name}, {text: string(p.Status), tone: statusTone(p.Status)},
			{text: strconv.Itoa(len(p.Violations))}, {text: displayNote(r, p)}})
	}
	if !slices.ContainsFunc(r.Properties, func(p report.Property) bool { return p.Note != "" }) {
		dropColumn(tb, 3)
	}
	return tb
}

// violationItems lists every witness of props, numbered across them in
// report order (the JUnit failure of one property lists its own).
func violationItems(props []report.Property) []item {
	var items []item
	for _, p := range props {
		for _, v := range p.Violations {
			it := item{strong: cmp.Or(v.Property, p.Name), head: v.Message}
			if len(v.Seqs) > 0 {
				it.detail = append(it.detail, seqsText(v.Seqs))
			}
			if b := becauseText(v.Because); b != "" {
				it.detail = append(it.detail, b)
			}
			items = append(items, it)
		}
	}
	return items
}

// becauseText prefixes the explanation with "because" unless the checker
// already wrote it so.
func becauseText(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasPrefix(strings.ToLower(s), "because") {
		return s
	}
	return "because " + s
}

// seqsText lists the run events of a witness, saying they are seqs of
// the run (a trace's event indexes are another numbering, "trace event
// N").
func seqsText(seqs []int32) string {
	s := make([]string, len(seqs))
	for i, seq := range seqs {
		s[i] = strconv.Itoa(int(seq))
	}
	if len(seqs) == 1 {
		return "run seq " + s[0]
	}
	return "run seqs " + strings.Join(s, ", ")
}

// summaryBlocks closes a rendering of several reports: one row per
// report, errors included, so that no file goes unmentioned.
func summaryBlocks(reports []report.Report) []block {
	tb := &table{
		header: []string{"file", "algorithm", "verdict", "failures", "details"},
		right:  []bool{false, false, false, true, false},
		notes:  4, keys: 2,
	}
	count := map[report.Verdict]int{}
	for i := range reports {
		r := &reports[i]
		count[r.Verdict]++
		w, t := verdictWord(r.Verdict)
		algo, failures := cmp.Or(r.Algorithm, "-"), strconv.Itoa(len(r.Recoveries))
		if r.Verdict == report.VerdictError {
			failures = "-"
		}
		tb.rows = append(tb.rows, []cell{{text: r.File}, {text: algo}, {text: w, tone: t}, {text: failures}, {text: summaryDetails(r)}})
	}
	head := fmt.Sprintf("Summary: %d of %d reports valid", count[report.VerdictValid], len(reports))
	for _, v := range []report.Verdict{report.VerdictInvalid, report.VerdictUnknown} {
		if n := count[v]; n > 0 {
			head += fmt.Sprintf(", %d %s", n, v)
		}
	}
	if n := count[report.VerdictError]; n > 0 {
		head += ", " + plural(n, "error", "errors")
	}
	return []block{
		{kind: heading, level: 1, text: head},
		{kind: tableBlock, table: tb},
	}
}

// summaryDetails is the last cell of a summary row: the failing
// properties, what is unknown, or the error.
func summaryDetails(r *report.Report) string {
	switch r.Verdict {
	case report.VerdictError:
		return r.Error
	case report.VerdictUnknown:
		c := r.Counts()
		if c.Pass == 0 {
			return "nothing checked: " + strconv.Itoa(c.Unknown) + " unknown"
		}
		return strconv.Itoa(c.Unknown) + " unknown (--strict)"
	}
	var failing []string
	for _, p := range r.Properties {
		if p.Status == report.Fail {
			failing = append(failing, p.Name)
		}
	}
	if len(failing) == 0 {
		return "-"
	}
	return strings.Join(failing, ", ")
}
