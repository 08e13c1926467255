package render

import (
	"strings"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
)

func init() {
	// twwidth's East Asian mode follows the locale (LANG=zh_CN… counts
	// "·", "—" and "…" two columns wide). Output must not depend on the
	// environment, so ambiguous-width characters are narrow, as modern
	// terminals draw them.
	twwidth.SetOptions(twwidth.Options{})
}

// displayWidth is the display width of s in terminal columns: a CJK or other
// wide character takes two, a combining mark none, ANSI colour
// sequences none, so that everything text lays out is measured alike.
func displayWidth(s string) int { return twwidth.Width(s) }

// wrapText writes s word-wrapped at width display columns: the first line
// after first, later lines after rest. Newlines in s start new lines (a
// "because" chain may be written one step per line). A word longer than
// the line is not broken.
func wrapText(sb *strings.Builder, s, first, rest string, width int) {
	prefix := first
	for _, line := range strings.Split(s, "\n") {
		sb.WriteString(prefix)
		col := displayWidth(prefix)
		start := col
		for _, w := range strings.Fields(line) {
			n := displayWidth(w)
			if col > start && col+1+n > width {
				sb.WriteByte('\n')
				sb.WriteString(rest)
				col = displayWidth(rest)
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

// wrapLines is s word-wrapped at width, one string a line.
func wrapLines(s string, width int) []string {
	var sb strings.Builder
	wrapText(&sb, s, "", "", width)
	return strings.Split(strings.TrimSuffix(sb.String(), "\n"), "\n")
}

// writeHeading writes text as a heading of at most width columns, underlined
// with rule ("=" or "-"): a heading too long for one line (a long file
// or process name) wraps — first at its " — ", which parts what the
// heading is about from what it says of it, then at words — and the
// underline spans its longest line. Each line of the text is painted in
// tone tn if color.
func writeHeading(sb *strings.Builder, text, rule string, width int, tn tone, color bool) {
	lines := wrapLines(text, width)
	if subject, rest, ok := strings.Cut(text, " — "); ok && len(lines) > 1 {
		lines = append(wrapLines(subject, width), wrapLines("— "+rest, width)...)
	}
	longest := 0
	for _, l := range lines {
		longest = max(longest, displayWidth(l))
		sb.WriteString(paint(l, tn, color))
		sb.WriteByte('\n')
	}
	sb.WriteString(strings.Repeat(rule, longest))
	sb.WriteByte('\n')
}
