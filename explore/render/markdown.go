package render

import (
	"io"
	"strings"
)

// mdEscaper escapes what GitHub-flavoured markdown would read as markup
// in text taken from traces (message ids, process names, paths).
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", `*`, `\*`, `_`, `\_`, `[`, `\[`, `]`, `\]`,
	`<`, `&lt;`, `>`, `&gt;`, `|`, `\|`, "\n", " ",
)

// writeMarkdown writes the blocks as GitHub-flavoured markdown, for CI
// job summaries.
func writeMarkdown(w io.Writer, doc []block) error {
	var sb strings.Builder
	for i, b := range doc {
		if i > 0 {
			sb.WriteByte('\n')
		}
		switch b.kind {
		case heading:
			if b.level == 1 {
				mark := "✅ "
				if b.bad {
					mark = "❌ "
				}
				sb.WriteString("## " + mark + mdEscaper.Replace(b.text) + "\n")
			} else {
				sb.WriteString("### " + mdEscaper.Replace(b.text) + "\n")
			}
		case para:
			sb.WriteString(mdEscaper.Replace(b.text) + "\n")
		case tableBlock:
			mdTable(&sb, b.table)
		case list:
			for _, it := range b.items {
				sb.WriteString("- " + mdEscaper.Replace(it.head) + "\n")
				for _, d := range it.detail {
					sb.WriteString("  - " + mdEscaper.Replace(d) + "\n")
				}
			}
		}
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

func mdTable(sb *strings.Builder, t *table) {
	sb.WriteByte('|')
	for _, h := range t.Header {
		sb.WriteString(" " + mdEscaper.Replace(h) + " |")
	}
	sb.WriteString("\n|")
	for _, r := range t.Right {
		if r {
			sb.WriteString(" ---: |")
		} else {
			sb.WriteString(" --- |")
		}
	}
	sb.WriteByte('\n')
	for _, row := range t.Rows {
		sb.WriteByte('|')
		for _, c := range row {
			sb.WriteString(" " + mdEscaper.Replace(c.Text) + " |")
		}
		sb.WriteByte('\n')
	}
}
