package render

import (
	"testing"

	"github.com/ckpt-dev/ckpt/report"
)

// TestLineTableLookup: a row's max line and uncoordinated cells are its
// process's first entry on those lines, whatever their order, and "-"
// where it has none.
func TestLineTableLookup(t *testing.T) {
	rec := &report.Recovery{
		Line: []report.LineEntry{{P: "P0"}, {P: "P1"}, {P: "P2"}},
		MaxLine: []report.MaxLineEntry{{P: "P1", Ckpt: 1, Pos: 4}, {P: "P0", Ckpt: -1, Pos: 2},
			{P: "P1", Ckpt: 9, Pos: 9}},
	}
	base := &report.UncoordinatedFailure{Line: []report.UncoordinatedEntry{{P: "P2", Ckpt: 3, Undone: 1, Domino: true},
		{P: "P0", Ckpt: -1, Pos: 5}, {P: "P2", Ckpt: 7}}}
	tests := []struct {
		base          *report.UncoordinatedFailure
		maxLine, unco []string
	}{
		{base, []string{"state @ 2", "ckpt 1 @ 4", "-"}, []string{"state @ 5, 0 undone", "-", "ckpt 3, 1 undone, domino"}},
		{nil, []string{"state @ 2", "ckpt 1 @ 4", "-"}, nil},
	}
	for _, tt := range tests {
		tb := lineTable(rec, tt.base)
		for i, row := range tb.rows {
			// sn and vt are dropped: none has them.
			if got := row[8].text; got != tt.maxLine[i] {
				t.Errorf("base %v, %s: max line %q, want %q", tt.base != nil, row[0].text, got, tt.maxLine[i])
			}
			if tt.unco == nil {
				if len(row) != 10 {
					t.Errorf("no base, %s: %d columns, want the uncoordinated one dropped", row[0].text, len(row))
				}
			} else if got := row[10].text; got != tt.unco[i] {
				t.Errorf("%s: uncoordinated %q, want %q", row[0].text, got, tt.unco[i])
			}
		}
	}
}
