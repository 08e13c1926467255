package report

import (
	"io"
	"strconv"
	"strings"

	texttable "github.com/ckpt-dev/ckpt/report/table"
)

// wrapWidth is where text paragraphs and list details wrap, and the width
// tables are fitted to (package table: a table too wide moves its notes
// column under it, then splits its columns; verify's tables mark no
// column that wraps, so no cell spans lines).
const wrapWidth = texttable.Width

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
	tw := texttable.NewWriter(&sb)
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
			texttable.Heading(&sb, b.text, rule, wrapWidth, func(s string) string { return paint(s, b.tone, opts.Color) })
		case paraBlock:
			texttable.Wrap(&sb, b.text, "", "", wrapWidth)
		case tableBlock:
			notes, err := tw.Write(textTable(b.table), wrapWidth, opts.Color)
			if err != nil {
				return err
			}
			if len(notes) > 0 {
				items := make([]item, len(notes))
				for j, n := range notes {
					items[j] = item{head: n}
				}
				writeTextList(&sb, block{kind: listBlock, items: items}, opts.Color)
			}
		case listBlock:
			writeTextList(&sb, b, opts.Color)
		}
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// textTable is t for package table, its tones as colours.
func textTable(t *table) *texttable.Table {
	wrap := make([]bool, len(t.header))
	copy(wrap, t.wrap)
	out := &texttable.Table{Header: t.header, Right: t.right, Wrap: wrap, Keys: t.keys, Notes: t.notes,
		Rows: make([][]texttable.Cell, len(t.rows))}
	for i, r := range t.rows {
		out.Rows[i] = make([]texttable.Cell, len(r))
		for j, c := range r {
			out.Rows[i][j] = texttable.Cell{Text: c.text, Color: toneColor[c.tone]}
		}
	}
	return out
}

func writeTextList(sb *strings.Builder, b block, color bool) {
	for i, it := range b.items {
		marker := "  - "
		if b.numbered {
			marker = "  " + strconv.Itoa(i+1) + ". "
		}
		indent := strings.Repeat(" ", texttable.DisplayWidth(marker))
		head := it.head
		if it.strong != "" {
			head = paint("["+it.strong+"]", bad, color) + " " + head
		}
		texttable.Wrap(sb, head, marker, indent, wrapWidth)
		for _, d := range it.detail {
			texttable.Wrap(sb, d, indent, indent+"  ", wrapWidth)
		}
	}
}
