package report

import (
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// wrapWidth is where text paragraphs and list details wrap, and the width
// tables are fitted to (fitTable).
const wrapWidth = 100

// ANSI colours of the tones; plain text gets none.
var toneColor = [...]string{plain: "", good: "\x1b[32m", bad: "\x1b[1;31m", warn: "\x1b[33m"}

const colorReset = "\x1b[0m"

func paint(s string, t tone, color bool) string {
	if !color || t == plain || s == "" {
		return s
	}
	return toneColor[t] + s + colorReset
}

func renderText(w io.Writer, reports []Report, opts Options) error {
	var sb strings.Builder
	// One table reused for every table of the report: a new tablewriter
	// table costs far more than a Reset, and reports can hold hundreds.
	tb := tablewriter.NewTable(&sb,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAutoFormat(tw.Off),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
	)
	for i, b := range document(reports, opts.Full) {
		if i > 0 {
			sb.WriteByte('\n')
			if b.kind == headingBlock && b.level == 1 {
				sb.WriteByte('\n')
			}
		}
		switch b.kind {
		case headingBlock:
			rule := "="
			if b.level > 1 {
				rule = "-"
			}
			sb.WriteString(paint(b.text, b.tone, opts.Color))
			sb.WriteByte('\n')
			sb.WriteString(strings.Repeat(rule, utf8.RuneCountInString(b.text)))
			sb.WriteByte('\n')
		case paraBlock:
			writeWrapped(&sb, b.text, "", "")
		case tableBlock:
			parts, notes := fitTable(b.table, wrapWidth)
			for j, part := range parts {
				if j > 0 {
					sb.WriteByte('\n')
				}
				if err := writeTextTable(tb, b.table, part, opts.Color); err != nil {
					return err
				}
			}
			if len(notes) > 0 {
				writeTextList(&sb, block{kind: listBlock, items: notes}, opts.Color)
			}
		case listBlock:
			writeTextList(&sb, b, opts.Color)
		}
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// writeTextTable draws the columns cols of t.
func writeTextTable(tb *tablewriter.Table, t *table, cols []int, color bool) error {
	align := make(tw.Alignment, len(cols))
	header := make([]any, len(cols))
	for j, c := range cols {
		align[j] = tw.AlignLeft
		if t.right[c] {
			align[j] = tw.AlignRight
		}
		header[j] = t.header[c]
	}
	tb.Reset()
	tb.Options(tablewriter.WithAlignment(align))
	tb.Header(header...)
	for _, r := range t.rows {
		// A fresh slice per row: the table keeps what Append is given.
		row := make([]string, len(cols))
		for j, c := range cols {
			if c < len(r) {
				// A cell never spans lines: the table's grid is what lets a
				// reader scan a column.
				row[j] = paint(oneLine(r[c].text), r[c].tone, color)
			}
		}
		if err := tb.Append(row); err != nil {
			return err
		}
	}
	return tb.Render()
}

func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n\t") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

func writeTextList(sb *strings.Builder, b block, color bool) {
	for i, it := range b.items {
		marker := "  - "
		if b.numbered {
			marker = "  " + strconv.Itoa(i+1) + ". "
		}
		indent := strings.Repeat(" ", utf8.RuneCountInString(marker))
		head := it.head
		if it.strong != "" {
			head = paint("["+it.strong+"]", bad, color) + " " + head
		}
		writeWrapped(sb, head, marker, indent)
		for _, d := range it.detail {
			writeWrapped(sb, d, indent, indent+"  ")
		}
	}
}

// writeWrapped writes s word-wrapped at wrapWidth: the first line after
// first, later lines after rest. Newlines in s start new lines (a
// "because" chain may be written one step per line).
func writeWrapped(sb *strings.Builder, s, first, rest string) {
	prefix := first
	for _, para := range strings.Split(s, "\n") {
		words := strings.Fields(para)
		sb.WriteString(prefix)
		col := utf8.RuneCountInString(prefix)
		start := col
		for _, w := range words {
			n := utf8.RuneCountInString(w)
			if col > start && col+1+n > wrapWidth {
				sb.WriteByte('\n')
				sb.WriteString(rest)
				col = utf8.RuneCountInString(rest)
				start = col
			}
			if col > start {
				sb.WriteByte(' ')
				col++
			}
			sb.WriteString(w)
			col += n
		}
		sb.WriteByte('\n')
		prefix = rest
	}
}
