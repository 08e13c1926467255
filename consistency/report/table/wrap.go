package table

import (
	"strings"
	"unicode/utf8"
)

// Wrap writes s word-wrapped at width: the first line after first, later
// lines after rest. Newlines in s start new lines (a "because" chain may
// be written one step per line). A word longer than the line is not
// broken.
func Wrap(sb *strings.Builder, s, first, rest string, width int) {
	prefix := first
	for _, para := range strings.Split(s, "\n") {
		sb.WriteString(prefix)
		col := utf8.RuneCountInString(prefix)
		start := col
		for _, w := range strings.Fields(para) {
			n := utf8.RuneCountInString(w)
			if col > start && col+1+n > width {
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

// Lines is s word-wrapped at width, one string a line.
func Lines(s string, width int) []string {
	var sb strings.Builder
	Wrap(&sb, s, "", "", width)
	return strings.Split(strings.TrimSuffix(sb.String(), "\n"), "\n")
}
