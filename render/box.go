package render

import "strings"

// drawTable fits t to width and draws it, its parts apart by a blank
// line, colouring cells if color; it returns the notes moved out of it,
// for the caller to list under it.
func drawTable(sb *strings.Builder, t *table, width int, color bool) []item {
	l := fit(t, width)
	for i, p := range l.parts {
		if i > 0 {
			sb.WriteByte('\n')
		}
		drawPart(sb, t, p, color)
	}
	return l.notes
}

// drawPart draws the columns of p of t as a box-drawn table: the header,
// a rule, then the rows, each line of a cell padded to its column's
// widest line, numbers right-aligned and the key columns left as row
// labels. Rows that span lines are ruled apart, so that each reads as
// one.
func drawPart(sb *strings.Builder, t *table, p part, color bool) {
	right := make([]bool, len(p.cols))
	head := make([][]string, len(p.cols))
	for j, c := range p.cols {
		right[j] = c >= max(t.keys, 1) && c < len(t.right) && t.right[c]
		head[j] = []string{t.header[c]}
	}
	grid := [][][]string{head}
	wrapped := false
	for _, r := range t.rows {
		cells := make([][]string, len(p.cols))
		for j, c := range p.cols {
			text, tn := "", plain
			if c < len(r) {
				text, tn = strings.TrimSpace(oneLine(r[c].text)), r[c].tone
			}
			cells[j] = []string{text}
			if p.wraps[j] > 0 {
				cells[j] = wrapLines(text, p.wraps[j])
				wrapped = wrapped || len(cells[j]) > 1
			}
			for k, l := range cells[j] {
				cells[j][k] = paint(l, tn, color)
			}
		}
		grid = append(grid, cells)
	}
	widths := make([]int, len(p.cols))
	for _, cells := range grid {
		for j, lines := range cells {
			for _, l := range lines {
				widths[j] = max(widths[j], displayWidth(l))
			}
		}
	}
	rule(sb, widths, "┌", "┬", "┐")
	for i, cells := range grid {
		if i == 1 || (i > 1 && wrapped) {
			rule(sb, widths, "├", "┼", "┤")
		}
		drawRow(sb, cells, widths, right)
	}
	rule(sb, widths, "└", "┴", "┘")
}

// rule draws a horizontal line of a table with columns of the given
// widths, with left, mid and right where it meets the vertical lines.
func rule(sb *strings.Builder, widths []int, left, mid, right string) {
	sb.WriteString(left)
	for j, w := range widths {
		if j > 0 {
			sb.WriteString(mid)
		}
		sb.WriteString(strings.Repeat("─", w+2))
	}
	sb.WriteString(right + "\n")
}

// drawRow draws one row of cells, as many lines as its tallest cell has.
func drawRow(sb *strings.Builder, cells [][]string, widths []int, right []bool) {
	height := 0
	for _, lines := range cells {
		height = max(height, len(lines))
	}
	for k := range height {
		sb.WriteString("│")
		for j, lines := range cells {
			l := ""
			if k < len(lines) {
				l = lines[k]
			}
			pad := strings.Repeat(" ", widths[j]-displayWidth(l))
			if right[j] {
				l = pad + l
			} else {
				l += pad
			}
			sb.WriteString(" " + l + " │")
		}
		sb.WriteString("\n")
	}
}
