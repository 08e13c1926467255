package render

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

// codeText escapes a heading or paragraph with esc and sets its code
// words (a file name, a command) as code sets them.
func codeText(b block, esc, code func(string) string) string {
	i := strings.Index(b.text, b.code)
	if b.code == "" || i < 0 {
		return esc(b.text)
	}
	return esc(b.text[:i]) + code(b.code) + esc(b.text[i+len(b.code):])
}

// mdText is a heading or paragraph in markdown, its code words in
// backticks when they can be (a code span cannot hold a backtick or a
// line break).
func mdText(b block) string {
	if strings.ContainsAny(b.code, "`\r\n") {
		return mdEscape(b.text)
	}
	return codeText(b, mdEscape, func(c string) string { return "`" + c + "`" })
}

// htmlHeading is a heading inside HTML (<summary>), where markdown is not
// read: the code words are <code>, everything HTML-escaped.
func htmlHeading(b block) string {
	return codeText(b, html.EscapeString, func(c string) string { return "<code>" + html.EscapeString(c) + "</code>" })
}

// toneMark marks a level-1 heading.
var toneMark = [...]string{plain: "", good: "✅ ", bad: "❌ ", warn: "⚠️ "}

// writeMarkdown writes the blocks as GitHub-flavoured markdown, for CI
// job summaries.
func writeMarkdown(w io.Writer, doc []block) error {
	var sb strings.Builder
	folded := false
	for i, b := range doc {
		if i > 0 {
			sb.WriteByte('\n')
		}
		if b.kind == heading && b.level == 1 && folded {
			sb.WriteString("</details>\n\n")
			folded = false
		}
		switch b.kind {
		case heading:
			switch {
			case b.fold:
				// GitHub renders <details> collapsed: a valid report's
				// tables stay one click away. The blank line after
				// <summary> lets the markdown inside render.
				sb.WriteString("<details><summary>✅ " + htmlHeading(b) + "</summary>\n")
				folded = true
			case b.level == 1:
				sb.WriteString("## " + toneMark[b.tone] + mdText(b) + "\n")
			default:
				sb.WriteString("### " + mdText(b) + "\n")
			}
		case para:
			sb.WriteString(mdText(b) + "\n")
		case tableBlock:
			writeMarkdownTable(&sb, b.table)
		case list:
			writeMarkdownList(&sb, b)
		}
	}
	if folded {
		sb.WriteString("\n</details>\n")
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

func writeMarkdownList(sb *strings.Builder, b block) {
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

func writeMarkdownTable(sb *strings.Builder, t *table) {
	// line writes a row of cells, sep on either side of every border.
	line := func(sep string, cells []string) {
		sb.WriteString("|" + sep + strings.Join(cells, sep+"|"+sep) + sep + "|\n")
	}
	head, delim := make([]string, len(t.header)), make([]string, len(t.header))
	for i, h := range t.header {
		head[i], delim[i] = mdEscape(h), "---"
		if t.right[i] {
			delim[i] += ":"
		}
	}
	line(" ", head)
	if t.dense {
		line("", delim)
	} else {
		line(" ", delim)
	}
	for _, r := range t.rows {
		cells := make([]string, len(t.header))
		for i := range min(len(r), len(cells)) {
			cells[i] = mdEscape(r[i].text)
			if r[i].tone == bad && cells[i] != "" {
				cells[i] = "**" + cells[i] + "**"
			}
		}
		line(" ", cells)
	}
}
