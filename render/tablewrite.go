package render

import "strings"

// ANSI colours of the tones; plain text gets none.
var toneColor = [...]string{plain: "", good: "\x1b[32m", bad: "\x1b[1;31m", warn: "\x1b[33m"}

const colorReset = "\x1b[0m"

// writeTable fits t to width and draws it into sb, its parts apart by
// a blank line, colouring cells if color; it returns the notes moved out
// of it, for the caller to list under it.
func writeTable(sb *strings.Builder, t *table, width int, color bool) []item {
	l := fit(t, width)
	for i, p := range l.parts {
		if i > 0 {
			sb.WriteByte('\n')
		}
		drawPart(sb, t, p, color)
	}
	return l.notes
}

// paint colours every line of s (each line of a cell is padded on its
// own, so each needs its colour and reset).
func paint(s string, t tone, color bool) string {
	if !color || t == plain || s == "" {
		return s
	}
	return toneColor[t] + strings.ReplaceAll(s, "\n", colorReset+"\n"+toneColor[t]) + colorReset
}

// drawPart draws the columns of p as a box-drawn table: the header, a
// rule, then the rows, ruled apart when a cell wraps over several lines
// so that each reads as one. Right-aligned columns are the numeric ones
// (t.right) past the key columns.
func drawPart(sb *strings.Builder, t *table, p part, color bool) {
	rows, widths, wrapped := partLines(t, p, color)
	rule := func(left, mid, end string) {
		sb.WriteString(left)
		for j, w := range widths {
			if j > 0 {
				sb.WriteString(mid)
			}
			sb.WriteString(strings.Repeat("─", w+2))
		}
		sb.WriteString(end + "\n")
	}
	rule("┌", "┬", "┐")
	for i, row := range rows {
		if i == 1 || i > 1 && wrapped {
			rule("├", "┼", "┤")
		}
		height := 0
		for _, lines := range row {
			height = max(height, len(lines))
		}
		for k := range height {
			sb.WriteString("│")
			for j, lines := range row {
				var l span
				if k < len(lines) {
					l = lines[k]
				}
				pad := strings.Repeat(" ", widths[j]-l.width)
				if c := p.cols[j]; c >= max(t.keys, 1) && c < len(t.right) && t.right[c] {
					l.text = pad + l.text
				} else {
					l.text += pad
				}
				sb.WriteString(" " + l.text + " │")
			}
			sb.WriteByte('\n')
		}
	}
	rule("└", "┴", "┘")
}

// span is one line of a cell as drawn, with its display width.
type span struct {
	text  string
	width int
}

// partLines are the lines of every cell of p, the header's first, each
// painted and without the spaces around it (a painted line keeps them:
// they are inside the colour), as the tables have always been drawn;
// widths are the columns' widths, the widest line of each, measured once
// here; wrapped says a cell wraps over several lines.
func partLines(t *table, p part, color bool) (rows [][][]span, widths []int, wrapped bool) {
	widths = make([]int, len(p.cols))
	spans := func(j int, lines []string, tn tone) []span {
		out := make([]span, len(lines))
		for k, l := range lines {
			l = strings.TrimSpace(paint(l, tn, color))
			out[k] = span{l, displayWidth(l)}
			widths[j] = max(widths[j], out[k].width)
		}
		return out
	}
	head := make([][]span, len(p.cols))
	for j, c := range p.cols {
		head[j] = spans(j, []string{t.header[c]}, plain)
	}
	rows = [][][]span{head}
	for _, r := range t.rows {
		row := make([][]span, len(p.cols))
		for j, c := range p.cols {
			lines, tn := []string{""}, plain
			if c < len(r) {
				lines, tn = []string{oneLine(r[c].text)}, r[c].tone
				if p.wraps[j] > 0 {
					lines = wrapLines(lines[0], p.wraps[j])
					wrapped = wrapped || len(lines) > 1
				}
			}
			row[j] = spans(j, lines, tn)
		}
		rows = append(rows, row)
	}
	return rows, widths, wrapped
}
