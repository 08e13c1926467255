package render

import (
	"slices"
	"strings"
)

// Text is fitted to a terminal of width columns: box-drawn tables and
// word-wrapped paragraphs, so that every command's text fits the same
// width the same way. A table that is too wide is fitted in this order
// (fit):
//
//  1. columns marked wrap (free text such as a schedule) are narrowed,
//     widest first, down to their longest word or header, and their
//     cells wrap over several lines; rows are then ruled apart so that
//     a wrapped row reads as one;
//  2. a notes column (free text a row can do without) moves under the
//     table as a list keyed by the row's key columns;
//  3. the columns are split over several tables, each repeating the key
//     columns.
//
// Cells of other columns never wrap: the grid is what lets a reader scan
// a column.
const width = 100

// part is one table of a layout: the columns it shows, and for each the
// width its cells wrap at (0: on one line).
type part struct {
	cols  []int
	wraps []int
}

// layout is how fit prints a table: one or more parts, and the notes
// moved out of it ("key · key: note"), to be listed under them.
type layout struct {
	parts []part
	notes []item
}

// fit lays t out in width columns. A single column wider than width on
// its own (a very long file name) cannot be fitted and is printed as it
// is.
func fit(t *table, width int) layout {
	w := columnWidths(t)
	floor := floors(t, w)
	all := allColumns(len(w))
	if p, ok := shrink(w, floor, all, width); ok {
		return layout{parts: []part{p}}
	}
	var l layout
	cols := all
	if t.notes > 0 && t.notes < len(w) {
		l.notes = noteItems(t)
		cols = append(cols[:t.notes:t.notes], cols[t.notes+1:]...)
	}
	keys := max(t.keys, 1)
	for start := keys; start < len(cols) || len(l.parts) == 0; {
		in := append([]int(nil), cols[:keys]...)
		for start < len(cols) {
			next := append(in, cols[start])
			if len(in) > keys && tableWidth(floor, next) > width {
				break
			}
			in = next
			start++
		}
		p, _ := shrink(w, floor, in, width)
		l.parts = append(l.parts, p)
	}
	return l
}

// shrink narrows the wrapping columns of cols, widest first, until the
// table fits width or every one is at its floor. ok says it fits.
func shrink(w, floor, cols []int, width int) (p part, ok bool) {
	cur := slices.Clone(w)
	for tableWidth(cur, cols) > width {
		widest := -1
		for _, c := range cols {
			if cur[c] > floor[c] && (widest < 0 || cur[c] > cur[widest]) {
				widest = c
			}
		}
		if widest < 0 {
			break
		}
		cur[widest]--
	}
	p = part{cols: cols, wraps: make([]int, len(cols))}
	for j, c := range cols {
		if cur[c] < w[c] {
			p.wraps[j] = cur[c]
		}
	}
	return p, tableWidth(cur, cols) <= width
}

func allColumns(n int) []int {
	cols := make([]int, n)
	for i := range cols {
		cols[i] = i
	}
	return cols
}

// columnWidths is each column's display width, as the table draws its
// cells on one line.
func columnWidths(t *table) []int {
	w := make([]int, len(t.header))
	for i, h := range t.header {
		w[i] = displayWidth(h)
	}
	for _, r := range t.rows {
		for i := range w {
			if i < len(r) {
				w[i] = max(w[i], displayWidth(oneLine(r[i].text)))
			}
		}
	}
	return w
}

// floors is how narrow each column may get: a wrapping column its header
// and its longest word, any other its width.
func floors(t *table, w []int) []int {
	f := slices.Clone(w)
	for c := range f {
		if c >= len(t.wrap) || !t.wrap[c] {
			continue
		}
		f[c] = displayWidth(t.header[c])
		for _, r := range t.rows {
			if c < len(r) {
				for _, word := range strings.Fields(r[c].text) {
					f[c] = max(f[c], displayWidth(word))
				}
			}
		}
	}
	return f
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
		var key []string
		for _, c := range r[:min(keys, len(r))] {
			if c.text != "" && c.text != "-" { // no algorithm: a file that could not be read
				key = append(key, c.text)
			}
		}
		items = append(items, item{head: strings.Join(key, " · ") + ": " + oneLine(note)})
	}
	return items
}

// oneLine is s with its line breaks and tabs made single spaces.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n\t") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}
