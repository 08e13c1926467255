package render

import (
	"io"
	"strings"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// wrapWidth is where paragraphs and list lines wrap.
const wrapWidth = 100

const (
	red   = "\x1b[1;31m"
	green = "\x1b[32m"
	reset = "\x1b[0m"
)

// writeText writes the blocks as plain text with tablewriter tables,
// like verify's text reports.
func writeText(w io.Writer, doc []block, color bool) error {
	var sb strings.Builder
	tb := tablewriter.NewTable(&sb,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAutoFormat(tw.Off),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
	)
	for i, b := range doc {
		if i > 0 {
			sb.WriteByte('\n')
		}
		switch b.kind {
		case heading:
			rule := "="
			if b.level > 1 {
				rule = "-"
			}
			text := b.text
			if color && b.level == 1 {
				c := green
				if b.bad {
					c = red
				}
				text = c + text + reset
			}
			sb.WriteString(text + "\n" + strings.Repeat(rule, utf8.RuneCountInString(b.text)) + "\n")
		case para:
			wrap(&sb, b.text, "", "")
		case tableBlock:
			if err := textTable(tb, b.table); err != nil {
				return err
			}
		case list:
			for _, it := range b.items {
				wrap(&sb, it.head, "  - ", "    ")
				for _, d := range it.detail {
					wrap(&sb, d, "    ", "      ")
				}
			}
		}
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

func textTable(tb *tablewriter.Table, t *table) error {
	align := make(tw.Alignment, len(t.header))
	for i := range align {
		align[i] = tw.AlignLeft
		if t.right[i] {
			align[i] = tw.AlignRight
		}
	}
	tb.Reset()
	tb.Options(tablewriter.WithAlignment(align))
	header := make([]any, len(t.header))
	for i, h := range t.header {
		header[i] = h
	}
	tb.Header(header...)
	for _, r := range t.rows {
		if err := tb.Append(append([]string(nil), r...)); err != nil {
			return err
		}
	}
	return tb.Render()
}

// wrap writes s word-wrapped at wrapWidth, the first line after first
// and the others after rest.
func wrap(sb *strings.Builder, s, first, rest string) {
	sb.WriteString(first)
	col := utf8.RuneCountInString(first)
	start := col
	for _, word := range strings.Fields(s) {
		n := utf8.RuneCountInString(word)
		if col > start && col+1+n > wrapWidth {
			sb.WriteString("\n" + rest)
			col = utf8.RuneCountInString(rest)
			start = col
		}
		if col > start {
			sb.WriteByte(' ')
			col++
		}
		sb.WriteString(word)
		col += n
	}
	sb.WriteByte('\n')
}
