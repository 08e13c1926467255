package render

import (
	"io"
	"strings"

	texttable "github.com/ckpt-dev/ckpt/report/table"
)

// wrapWidth is where paragraphs and list lines wrap, and the width tables
// are fitted to (package table).
const wrapWidth = texttable.Width

const (
	red   = "\x1b[1;31m"
	green = "\x1b[32m"
	reset = "\x1b[0m"
)

// writeText writes the blocks as plain text with tablewriter tables,
// like verify's text reports.
func writeText(w io.Writer, doc []block, color bool) error {
	var sb strings.Builder
	tw := texttable.NewWriter(&sb)
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
			var paint func(string) string
			if color && b.level == 1 {
				c := green
				if b.bad {
					c = red
				}
				paint = func(s string) string { return c + s + reset }
			}
			texttable.Heading(&sb, b.text, rule, wrapWidth, paint)
		case para:
			texttable.Wrap(&sb, b.text, "", "", wrapWidth)
		case tableBlock:
			notes, err := tw.Write(b.table, wrapWidth, color)
			if err != nil {
				return err
			}
			for _, n := range notes {
				texttable.Wrap(&sb, n, "  - ", "    ", wrapWidth)
			}
		case list:
			for _, it := range b.items {
				texttable.Wrap(&sb, it.head, "  - ", "    ", wrapWidth)
				for _, d := range it.detail {
					texttable.Wrap(&sb, d, "    ", "      ", wrapWidth)
				}
			}
		}
	}
	_, err := io.WriteString(w, sb.String())
	return err
}
