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
	right := make([]bool, len(p.cols))
	for j, c := range p.cols {
		right[j] = c >= max(t.keys, 1) && c < len(t.right) && t.right[c]
	}
	rows, wrapped := partLines(t, p, color)
	widths := make([]int, len(p.cols))
	for _, row := range rows {
		for j, lines := range row {
			for _, l := range lines {
				widths[j] = max(widths[j], displayWidth(l))
			}
		}
	}
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
				s := ""
				if k < len(lines) {
					s = lines[k]
				}
				pad := strings.Repeat(" ", widths[j]-displayWidth(s))
				if right[j] {
					s = pad + s
				} else {
					s += pad
				}
				sb.WriteString(" " + s + " │")
			}
			sb.WriteByte('\n')
		}
	}
	rule("└", "┴", "┘")
}

// partLines are the lines of every cell of p, the header's first, each
// painted and without the spaces around it (a painted line keeps them:
// they are inside the colour), as the tables have always been drawn;
// wrapped says a cell wraps over several lines.
func partLines(t *table, p part, color bool) (rows [][][]string, wrapped bool) {
	head := make([][]string, len(p.cols))
	for j, c := range p.cols {
		head[j] = []string{strings.TrimSpace(t.header[c])}
	}
	rows = [][][]string{head}
	for _, r := range t.rows {
		row := make([][]string, len(p.cols))
		for j, c := range p.cols {
			row[j] = []string{""}
			if c >= len(r) {
				continue
			}
			text := oneLine(r[c].text)
			if p.wraps[j] > 0 {
				row[j] = wrapLines(text, p.wraps[j])
				wrapped = wrapped || len(row[j]) > 1
			} else {
				row[j][0] = text
			}
			for k := range row[j] {
				row[j][k] = strings.TrimSpace(paint(row[j][k], r[c].tone, color))
			}
		}
		rows = append(rows, row)
	}
	return rows, wrapped
}
