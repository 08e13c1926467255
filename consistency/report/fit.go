package report

import "unicode/utf8"

// Text tables are fitted to a terminal of wrapWidth columns without ever
// wrapping a cell (a grid whose rows span several lines is hard to scan):
// first a column of free text (notes, details) moves under the table as a
// list keyed by the row's key columns; then, if the table is still too
// wide, its columns are split over several tables, each repeating the key
// columns. Markdown keeps one table: a browser scrolls it.

// fitTable returns the tables to print for t, as the columns of t each
// shows, and the notes moved out of it. A single column wider than width
// on its own (a very long file name) cannot be fitted and is printed as
// it is.
func fitTable(t *table, width int) ([][]int, []item) {
	w := columnWidths(t)
	if all := allColumns(len(w)); tableWidth(w, all) <= width {
		return [][]int{all}, nil
	}
	var notes []item
	cols := allColumns(len(w))
	if t.notes > 0 && t.notes < len(w) {
		notes = noteItems(t)
		cols = append(cols[:t.notes:t.notes], cols[t.notes+1:]...)
	}
	keys := max(t.keys, 1)
	var parts [][]int
	for start := keys; start < len(cols) || len(parts) == 0; {
		part := append([]int(nil), cols[:keys]...)
		for start < len(cols) {
			next := append(part, cols[start])
			if len(part) > keys && tableWidth(w, next) > width {
				break
			}
			part = next
			start++
		}
		parts = append(parts, part)
	}
	return parts, notes
}

func allColumns(n int) []int {
	cols := make([]int, n)
	for i := range cols {
		cols[i] = i
	}
	return cols
}

// columnWidths is each column's width in runes, as the text table draws
// its cells (on one line).
func columnWidths(t *table) []int {
	w := make([]int, len(t.header))
	for i, h := range t.header {
		w[i] = utf8.RuneCountInString(h)
	}
	for _, r := range t.rows {
		for i := range w {
			if i < len(r) {
				w[i] = max(w[i], utf8.RuneCountInString(oneLine(r[i].text)))
			}
		}
	}
	return w
}

// tableWidth is the width of a box-drawn table of the given columns:
// "│ cell │ cell │" — a border, then a space, the cell, a space and a
// border per column.
func tableWidth(w []int, cols []int) int {
	n := 1
	for _, c := range cols {
		n += w[c] + 3
	}
	return n
}

// noteItems lists the non-empty cells of t's notes column, each after
// the row's key columns ("z-cycle-free: PK checkpoints are …").
func noteItems(t *table) []item {
	var items []item
	keys := max(t.keys, 1)
	for _, r := range t.rows {
		if t.notes >= len(r) {
			continue
		}
		note := r[t.notes].text
		if note == "" || note == "-" {
			continue
		}
		key := ""
		for k := 0; k < keys && k < len(r); k++ {
			if t := r[k].text; t != "" && t != "-" { // no algorithm: a file that could not be read
				if key != "" {
					key += " · "
				}
				key += t
			}
		}
		items = append(items, item{head: key + ": " + oneLine(note)})
	}
	return items
}
