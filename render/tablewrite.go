package render

import (
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// ANSI colours of the tones; plain text gets none.
var toneColor = [...]string{plain: "", good: "\x1b[32m", bad: "\x1b[1;31m", warn: "\x1b[33m"}

const colorReset = "\x1b[0m"

// tableWriter draws tables into a strings.Builder. It reuses one
// tablewriter table for all of them: a new one costs far more than a
// Reset, and a report can hold hundreds.
type tableWriter struct {
	sb *strings.Builder
	tb *tablewriter.Table
}

func newTableWriter(sb *strings.Builder) *tableWriter {
	return &tableWriter{sb: sb, tb: tablewriter.NewTable(sb,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAutoFormat(tw.Off),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithRenderer(renderer.NewBlueprint()),
	)}
}

// write fits t to width and draws it, its parts apart by a blank line,
// colouring cells if color; it returns the notes moved out of it, for
// the caller to list under it.
func (w *tableWriter) write(t *table, width int, color bool) ([]item, error) {
	l := fit(t, width)
	for i, p := range l.parts {
		if i > 0 {
			w.sb.WriteByte('\n')
		}
		if err := w.part(t, p, color); err != nil {
			return nil, err
		}
	}
	return l.notes, nil
}

// part draws the columns of p.
func (w *tableWriter) part(t *table, p part, color bool) error {
	align := make(tw.Alignment, len(p.cols))
	header := make([]any, len(p.cols))
	for j, c := range p.cols {
		align[j] = tw.AlignLeft
		if c >= max(t.keys, 1) && c < len(t.right) && t.right[c] {
			align[j] = tw.AlignRight
		}
		header[j] = t.header[c]
	}
	rows := make([][]string, len(t.rows))
	wrapped := false
	for i, r := range t.rows {
		// A fresh slice per row: the table keeps what Append is given.
		row := make([]string, len(p.cols))
		for j, c := range p.cols {
			if c >= len(r) {
				continue
			}
			text := oneLine(r[c].text)
			if p.wraps[j] > 0 {
				text = strings.Join(wrapLines(text, p.wraps[j]), "\n")
				wrapped = wrapped || strings.Contains(text, "\n")
			}
			row[j] = paint(text, r[c].tone, color)
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
// its own, so each needs its colour and reset).
func paint(s string, t tone, color bool) string {
	if !color || t == plain || s == "" {
		return s
	}
	return toneColor[t] + strings.ReplaceAll(s, "\n", colorReset+"\n"+toneColor[t]) + colorReset
}
