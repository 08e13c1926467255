package render

import (
	"io"
	"strconv"
	"strings"
)

// writeText writes the blocks for a terminal of width columns: headings
// underlined, paragraphs and lists word-wrapped, tables box-drawn and
// fitted (layout.go), ANSI colours by tone if color.
func writeText(w io.Writer, doc []block, color bool) error {
	var sb strings.Builder
	for i, b := range doc {
		if i > 0 && !b.tight {
			sb.WriteByte('\n')
			if b.kind == heading && b.level == 1 {
				sb.WriteByte('\n')
			}
		}
		switch b.kind {
		case heading:
			if b.level == 3 {
				wrapText(&sb, b.text, "", "", width)
				break
			}
			rule := "="
			if b.level > 1 {
				rule = "-"
			}
			writeHeading(&sb, b.text, rule, width, b.tone, color)
		case para:
			wrapText(&sb, b.text, "", "", width)
		case tableBlock:
			writeTextList(&sb, block{items: writeTable(&sb, b.table, width, color)}, color)
		case list:
			writeTextList(&sb, b, color)
		}
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

func writeTextList(sb *strings.Builder, b block, color bool) {
	for i, it := range b.items {
		marker := "  - "
		if b.numbered {
			marker = "  " + strconv.Itoa(i+1) + ". "
		}
		indent := strings.Repeat(" ", displayWidth(marker))
		head := it.head
		if it.strong != "" {
			head = paint("["+it.strong+"]", bad, color) + " " + head
		}
		wrapText(sb, head, marker, indent, width)
		for _, d := range it.detail {
			wrapText(sb, d, indent, indent+"  ", width)
		}
	}
}
