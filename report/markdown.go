package report

import (
	"html"
	"io"
	"strconv"
	"strings"
)

// mdEscaper escapes what GitHub-flavoured markdown would otherwise read as
// markup, so that messages and labels taken from traces render as typed;
// the pipe matters most, since one unescaped pipe shifts a table row.
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", `*`, `\*`, `_`, `\_`, `[`, `\[`, `]`, `\]`,
	`&`, `&amp;`, `<`, `&lt;`, `>`, `&gt;`, `|`, `\|`, `#`, `\#`,
	"\r\n", "<br>", "\n", "<br>", "\r", "<br>",
)

func mdEscape(s string) string { return mdEscaper.Replace(s) }

// mdHeading sets the file name of a heading (or the command of a
// paragraph) as code (when it can be: a
// code span cannot hold a backtick) and escapes the rest.
func mdHeading(b block) string {
	if b.code == "" || strings.Contains(b.code, "`") || strings.ContainsAny(b.code, "\r\n") {
		return mdEscape(b.text)
	}
	i := strings.Index(b.text, b.code)
	if i < 0 {
		return mdEscape(b.text)
	}
	return mdEscape(b.text[:i]) + "`" + b.code + "`" + mdEscape(b.text[i+len(b.code):])
}

func renderMarkdown(w io.Writer, reports []Report, opts Options) error {
	doc := document(reports, opts.Full)
	// A CI job summary is read from the top: the summary table, when
	// there is one, comes first.
	if n := len(doc); n >= 2 && len(reports) > 1 {
		doc = append(doc[n-2:n:n], doc[:n-2]...)
	}
	var sb strings.Builder
	folded := false
	for i, b := range doc {
		if i > 0 {
			sb.WriteByte('\n')
		}
		if b.kind == headingBlock && b.level == 1 && folded {
			sb.WriteString("</details>\n\n")
			folded = false
		}
		switch b.kind {
		case headingBlock:
			if b.fold {
				// GitHub renders <details> collapsed: a valid report's
				// tables stay one click away. The blank line after
				// <summary> lets the markdown inside render.
				sb.WriteString("<details><summary>✅ " + htmlHeading(b) + "</summary>\n")
				folded = true
				continue
			}
			if b.level == 1 {
				sb.WriteString("## ")
				switch b.tone {
				case good:
					sb.WriteString("✅ ")
				case bad:
					sb.WriteString("❌ ")
				case warn:
					sb.WriteString("⚠️ ")
				}
			} else {
				sb.WriteString("### ")
			}
			sb.WriteString(mdHeading(b))
			sb.WriteByte('\n')
		case paraBlock:
			sb.WriteString(mdHeading(b))
			sb.WriteByte('\n')
		case tableBlock:
			writeMarkdownTable(&sb, b.table)
		case listBlock:
			for j, it := range b.items {
				marker := "- "
				if b.numbered {
					marker = strconv.Itoa(j+1) + ". "
				}
				sb.WriteString(marker)
				if it.strong != "" {
					sb.WriteString("**" + mdEscape(it.strong) + "**: ")
				}
				sb.WriteString(mdEscape(it.head))
				sb.WriteByte('\n')
				pad := strings.Repeat(" ", len(marker))
				for _, d := range it.detail {
					sb.WriteString(pad + "- " + mdEscape(d) + "\n")
				}
			}
		}
	}
	if folded {
		sb.WriteString("\n</details>\n")
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// htmlHeading is a heading inside HTML (<summary>), where markdown is not
// read: the file name becomes <code>, the rest is HTML-escaped.
func htmlHeading(b block) string {
	esc := html.EscapeString
	if b.code == "" {
		return esc(b.text)
	}
	i := strings.Index(b.text, b.code)
	if i < 0 {
		return esc(b.text)
	}
	return esc(b.text[:i]) + "<code>" + esc(b.code) + "</code>" + esc(b.text[i+len(b.code):])
}

func writeMarkdownTable(sb *strings.Builder, t *table) {
	sb.WriteByte('|')
	for _, h := range t.header {
		sb.WriteString(" " + mdEscape(h) + " |")
	}
	sb.WriteString("\n|")
	for i := range t.header {
		if t.right[i] {
			sb.WriteString(" ---: |")
		} else {
			sb.WriteString(" --- |")
		}
	}
	sb.WriteByte('\n')
	for _, r := range t.rows {
		sb.WriteByte('|')
		for i := range t.header {
			s := ""
			if i < len(r) {
				s = mdEscape(r[i].text)
				if r[i].tone == bad && s != "" {
					s = "**" + s + "**"
				}
			}
			sb.WriteString(" " + s + " |")
		}
		sb.WriteByte('\n')
	}
}
