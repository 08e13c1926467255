// Package table lays out ckpt's text output for a terminal of Width
// columns: box-drawn tables fitted to it, and word-wrapped paragraphs.
// verify's reports (report), explore's (explore/render) and
// compare's (compare) all print through it, so that every
// command's text fits the same width the same way.
//
// A table that is too wide is fitted in this order (Fit):
//
//  1. columns marked Wrap (free text such as a schedule) are narrowed,
//     widest first, down to their longest word or header, and their
//     cells wrap over several lines; rows are then ruled apart so that
//     a wrapped row reads as one;
//  2. a Notes column (free text a row can do without) moves under the
//     table as a list keyed by the row's key columns;
//  3. the columns are split over several tables, each repeating the key
//     columns.
//
// Cells of other columns never wrap: the grid is what lets a reader scan
// a column.
package table

import (
	"strings"
)

// Width is the width of the terminal text output is fitted to.
const Width = 100

// Cell is one table cell.
type Cell struct {
	Text string
	// Color is the ANSI sequence the cell is painted with when colour is
	// on ("" none).
	Color string
}

// Table is a text table.
type Table struct {
	Header []string
	// Right marks right-aligned (numeric) columns.
	Right []bool
	Rows  [][]Cell
	// Keys is how many leading columns identify a row (0 means 1): a
	// table split for width repeats them, and moved notes name them.
	Keys int
	// Notes is the index of a column of free text that Fit may move
	// under the table (0: none, column 0 being a key).
	Notes int
	// Wrap marks the columns whose cells may wrap over several lines
	// (nil: none).
	Wrap []bool
}

// Row returns a row of uncoloured cells.
func Row(text ...string) []Cell {
	row := make([]Cell, len(text))
	for i, s := range text {
		row[i] = Cell{Text: s}
	}
	return row
}

// Plain returns rows of uncoloured cells.
func Plain(rows [][]string) [][]Cell {
	out := make([][]Cell, len(rows))
	for i, r := range rows {
		out[i] = Row(r...)
	}
	return out
}

// Part is one table of a layout: the columns it shows, and for each the
// width its cells wrap at (0: on one line).
type Part struct {
	Cols  []int
	Wraps []int
}

// Layout is how Fit prints a table: one or more parts, and the notes
// moved out of it ("key · key: note"), to be listed under them.
type Layout struct {
	Parts []Part
	Notes []string
}

// Fit lays t out in width columns. A single column wider than width on
// its own (a very long file name) cannot be fitted and is printed as it
// is.
func Fit(t *Table, width int) Layout {
	w := columnWidths(t)
	floor := floors(t, w)
	all := allColumns(len(w))
	if p, ok := shrink(w, floor, all, width); ok {
		return Layout{Parts: []Part{p}}
	}
	var l Layout
	cols := all
	if t.Notes > 0 && t.Notes < len(w) {
		l.Notes = noteItems(t)
		cols = append(cols[:t.Notes:t.Notes], cols[t.Notes+1:]...)
	}
	keys := max(t.Keys, 1)
	for start := keys; start < len(cols) || len(l.Parts) == 0; {
		part := append([]int(nil), cols[:keys]...)
		for start < len(cols) {
			next := append(part, cols[start])
			if len(part) > keys && tableWidth(floor, next) > width {
				break
			}
			part = next
			start++
		}
		p, _ := shrink(w, floor, part, width)
		l.Parts = append(l.Parts, p)
	}
	return l
}

// shrink narrows the wrapping columns of cols, widest first, until the
// table fits width or every one is at its floor. ok says it fits.
func shrink(w, floor, cols []int, width int) (p Part, ok bool) {
	cur := make([]int, len(w))
	copy(cur, w)
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
	p = Part{Cols: cols, Wraps: make([]int, len(cols))}
	for j, c := range cols {
		if cur[c] < w[c] {
			p.Wraps[j] = cur[c]
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
func columnWidths(t *Table) []int {
	w := make([]int, len(t.Header))
	for i, h := range t.Header {
		w[i] = DisplayWidth(h)
	}
	for _, r := range t.Rows {
		for i := range w {
			if i < len(r) {
				w[i] = max(w[i], DisplayWidth(OneLine(r[i].Text)))
			}
		}
	}
	return w
}

// floors is how narrow each column may get: a wrapping column its header
// and its longest word, any other its width.
func floors(t *Table, w []int) []int {
	f := make([]int, len(w))
	copy(f, w)
	for c := range f {
		if c >= len(t.Wrap) || !t.Wrap[c] {
			continue
		}
		f[c] = DisplayWidth(t.Header[c])
		for _, r := range t.Rows {
			if c < len(r) {
				for _, word := range strings.Fields(r[c].Text) {
					f[c] = max(f[c], DisplayWidth(word))
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
func noteItems(t *Table) []string {
	var items []string
	keys := max(t.Keys, 1)
	for _, r := range t.Rows {
		if t.Notes >= len(r) {
			continue
		}
		note := r[t.Notes].Text
		if note == "" || note == "-" {
			continue
		}
		key := ""
		for k := 0; k < keys && k < len(r); k++ {
			if t := r[k].Text; t != "" && t != "-" { // no algorithm: a file that could not be read
				if key != "" {
					key += " · "
				}
				key += t
			}
		}
		items = append(items, key+": "+OneLine(note))
	}
	return items
}

// OneLine is s with its line breaks and tabs made single spaces.
func OneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n\t") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}
