package table

import (
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

const colorReset = "\x1b[0m"

// Writer draws tables into a strings.Builder. It reuses one tablewriter
// table for all of them: a new one costs far more than a Reset, and a
// report can hold hundreds.
type Writer struct {
	sb *strings.Builder
	tb *tablewriter.Table
}

// NewWriter returns a Writer drawing into sb.
func NewWriter(sb *strings.Builder) *Writer {
	return &Writer{sb: sb, tb: tablewriter.NewTable(sb,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAutoFormat(tw.Off),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithRenderer(renderer.NewBlueprint()),
	)}
}

// Write fits t to width and draws it, its parts apart by a blank line,
// colouring cells if color; it returns the notes moved out of it, for
// the caller to list under it.
func (w *Writer) Write(t *Table, width int, color bool) ([]string, error) {
	l := Fit(t, width)
	for i, p := range l.Parts {
		if i > 0 {
			w.sb.WriteByte('\n')
		}
		if err := w.part(t, p, color); err != nil {
			return nil, err
		}
	}
	return l.Notes, nil
}

// part draws the columns of p.
func (w *Writer) part(t *Table, p Part, color bool) error {
	align := make(tw.Alignment, len(p.Cols))
	header := make([]any, len(p.Cols))
	for j, c := range p.Cols {
		align[j] = tw.AlignLeft
		if c < len(t.Right) && t.Right[c] {
			align[j] = tw.AlignRight
		}
		header[j] = t.Header[c]
	}
	rows := make([][]string, len(t.Rows))
	wrapped := false
	for i, r := range t.Rows {
		// A fresh slice per row: the table keeps what Append is given.
		row := make([]string, len(p.Cols))
		for j, c := range p.Cols {
			if c >= len(r) {
				continue
			}
			text := OneLine(r[c].Text)
			if p.Wraps[j] > 0 {
				text = strings.Join(Lines(text, p.Wraps[j]), "\n")
				wrapped = wrapped || strings.Contains(text, "\n")
			}
			row[j] = paint(text, r[c].Color, color)
		}
		rows[i] = row
	}
	// Rows that span lines are ruled apart, so that each reads as one.
	between := tw.Off
	if wrapped {
		between = tw.On
	}
	w.tb.Reset()
	w.tb.Options(tablewriter.WithAlignment(align),
		tablewriter.WithRendition(tw.Rendition{Settings: tw.Settings{Separators: tw.Separators{BetweenRows: between}}}))
	w.tb.Header(header...)
	for _, row := range rows {
		if err := w.tb.Append(row); err != nil {
			return err
		}
	}
	return w.tb.Render()
}

// paint colours every line of s (tablewriter pads each line of a cell on
// its own).
func paint(s, c string, color bool) string {
	if !color || c == "" || s == "" {
		return s
	}
	return c + strings.ReplaceAll(s, "\n", colorReset+"\n"+c) + colorReset
}
