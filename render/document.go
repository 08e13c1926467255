package render

import (
	"io"
	"slices"
)

// The document every command's text and markdown are drawn from: a list
// of blocks (headings, paragraphs, tables, lists) built once from what
// the command found. Only the surface syntax differs between the two
// writers (text.go, markdown.go).

// tone colours a cell or heading in a terminal; markdown marks a level-1
// heading by it and sets bad cells in bold.
type tone uint8

const (
	plain tone = iota
	good
	bad
	warn
)

type blockKind uint8

const (
	heading blockKind = iota
	para
	tableBlock
	list
)

// cell is one table cell.
type cell struct {
	text string
	tone tone
}

// table is a table with a header. Text fits it to the terminal width
// (layout.go); markdown keeps it whole.
type table struct {
	header []string
	// right marks right-aligned (numeric) columns; text sets the key
	// columns left whatever it says, as row labels.
	right []bool
	// wrap marks the columns whose cells may wrap at spaces to fit the
	// text width (free text such as a schedule); nil: none.
	wrap []bool
	rows [][]cell
	// notes is the index of a column of free text that a narrow
	// rendering may move under the table (0: none, column 0 being a key).
	notes int
	// keys is how many leading columns identify a row (0 means 1): a
	// table split for width repeats them, and moved notes name them.
	keys int
	// dense writes the markdown delimiter row without spaces,
	// "|---|---:|", as compare's tables always have.
	dense bool
}

// item is one entry of a list: a first line and indented detail lines.
type item struct {
	head   string
	strong string // shown emphasised before head (a property name)
	detail []string
}

type block struct {
	kind blockKind
	// level of a heading: 1 a document (or report), 2 a section, 3 a
	// table's caption — in text a plain line, not underlined.
	level    int
	text     string
	tone     tone
	table    *table
	items    []item
	numbered bool
	// code marks the words of a heading or paragraph that are a file
	// name or a command, so that markdown can set them as code.
	code string
	// fold marks a level-1 section a CI summary may fold away: a valid
	// report among several, so that the failures stand out.
	fold bool
	// tight: text draws the block right under the previous one, without
	// a blank line (compare's caption, table and note read as one).
	tight bool
}

// row returns a row of plain cells.
func row(text ...string) []cell {
	r := make([]cell, len(text))
	for i, s := range text {
		r[i] = cell{text: s}
	}
	return r
}

// dropColumn removes column c of t, copying what it shares.
func dropColumn(t *table, c int) {
	t.header = slices.Delete(slices.Clone(t.header), c, c+1)
	t.right = slices.Delete(slices.Clone(t.right), c, c+1)
	if t.wrap != nil {
		t.wrap = slices.Delete(t.wrap, c, c+1)
	}
	for i := range t.rows {
		t.rows[i] = slices.Delete(t.rows[i], c, c+1)
	}
	if t.notes == c {
		t.notes = 0
	}
}

// writeDoc writes doc as markdown, or as text in any other format.
func writeDoc(w io.Writer, f Format, doc []block, color bool) error {
	if f == Markdown {
		return writeMarkdown(w, doc)
	}
	return writeText(w, doc, color)
}
