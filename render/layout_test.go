package render

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWrap(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"short", "> short\n"},
		{"a\nb", "> a\n  b\n"},
		{strings.Repeat("word ", 30), "> " + strings.TrimSpace(strings.Repeat("word ", 19)) + "\n  " + strings.TrimSpace(strings.Repeat("word ", 11)) + "\n"},
		{strings.Repeat("x", 120), "> " + strings.Repeat("x", 120) + "\n"},
	}
	for _, tc := range tests {
		var sb strings.Builder
		wrapText(&sb, tc.in, "> ", "  ", width)
		if sb.String() != tc.want {
			t.Errorf("wrap(%q):\n%q\nwant\n%q", tc.in, sb.String(), tc.want)
		}
	}
	if got := wrapLines("one two three four", 9); fmt.Sprint(got) != "[one two three four]" {
		t.Errorf("Lines at 9: %q", got)
	}
	if got := wrapLines("one two three four", 8); len(got) != 3 || got[0] != "one two" || got[2] != "four" {
		t.Errorf("Lines at 8: %q", got)
	}
}

func partCols(l layout) string {
	var s []string
	for _, p := range l.parts {
		s = append(s, fmt.Sprint(p.cols))
	}
	return strings.Join(s, " ")
}

func TestFit(t *testing.T) {
	tb := &table{header: []string{"k", "a", "b", "c"}, right: []bool{false, true, true, true},
		rows: plainRows([][]string{{"x", strings.Repeat("1", 10), strings.Repeat("2", 10), strings.Repeat("3", 10)}})}
	// Widths 1, 10, 10, 10: the whole table is 1+4+13*3 = 44 wide.
	if l := fit(tb, 44); partCols(l) != "[0 1 2 3]" || fmt.Sprint(l.parts[0].wraps) != "[0 0 0 0]" {
		t.Errorf("a table that fits is changed: %+v", l)
	}
	l := fit(tb, 31)
	if partCols(l) != "[0 1 2] [0 3]" || len(l.notes) != 0 {
		t.Fatalf("parts %s, %d notes, want [0 1 2] [0 3] and none", partCols(l), len(l.notes))
	}
	// A column too wide on its own still gets a part of its own.
	if l := fit(tb, 5); partCols(l) != "[0 1] [0 2] [0 3]" {
		t.Errorf("parts %s at width 5, want one per non-key column", partCols(l))
	}
	tb.notes = 3
	l = fit(tb, 31)
	if partCols(l) != "[0 1 2]" || len(l.notes) != 1 || l.notes[0].head != "x: "+strings.Repeat("3", 10) {
		t.Errorf("notes column not moved out: %s, notes %q", partCols(l), l.notes)
	}
}

func TestFitWraps(t *testing.T) {
	tb := &table{header: []string{"k", "n", "why"}, right: []bool{false, true, false}, wrap: []bool{false, false, true},
		rows: plainRows([][]string{{"ms", "12", "because a long explanation of twelve words that cannot fit on one line"}})}
	// k 2, n 2, why 70: 1 + 5 + 5 + 73 = 84 wide.
	l := fit(tb, 50)
	if partCols(l) != "[0 1 2]" || fmt.Sprint(l.parts[0].wraps) != "[0 0 36]" {
		t.Errorf("the free-text column does not wrap to the room left: %+v", l)
	}
	// Never narrower than its longest word ("explanation", 11): below
	// that, the table is split instead.
	l = fit(tb, 20)
	if partCols(l) != "[0 1] [0 2]" || fmt.Sprint(l.parts[1].wraps) != "[0 11]" {
		t.Errorf("at width 20: %+v", l)
	}
	// Two wrapping columns shrink widest first, so they end up even:
	// 50 = 1 + (19+3) + (2+3) + (19+3).
	tb.rows[0][0].text = strings.Repeat("word ", 12)
	tb.wrap[0] = true
	l = fit(tb, 50)
	if w := l.parts[0].wraps; len(l.parts) != 1 || fmt.Sprint(w) != "[19 0 19]" {
		t.Errorf("two wrapping columns: %+v", l)
	}
}

// TestWriteWrapped: a wrapped row spans lines, rows are ruled apart, no
// line is wider than the width, and colour is set on every line of a
// cell (and reset before its border).
func TestWriteWrapped(t *testing.T) {
	tb := &table{header: []string{"algorithm", "first reached by"}, wrap: []bool{false, true},
		rows: [][]cell{
			{{text: "ms"}, {text: "schedule 1: crash P1 after its last event (its checkpoint tick at t=2) (t=2, down 1s); crash P2 before its checkpoint tick at t=2 (t=2, down 1s)", tone: bad}},
			{{text: "pk"}, {text: "schedule 2"}},
		}}
	var sb strings.Builder
	writeTable(&sb, tb, 60, false)
	out := sb.String()
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if n := utf8.RuneCountInString(line); n > 60 {
			t.Errorf("line %d wide: %s", n, line)
		}
	}
	if strings.Count(out, "├") != 2 || !strings.Contains(out, "│ ms        │ schedule 1: crash P1 after its last event    │\n│           │ (its checkpoint tick at t=2) (t=2, down 1s); │\n") {
		t.Errorf("wrapped rows:\n%s", out)
	}
	sb.Reset()
	writeTable(&sb, tb, 60, true)
	if !strings.Contains(sb.String(), "│           │ \x1b[1;31m(its checkpoint tick at t=2) (t=2, down 1s);\x1b[0m │\n") {
		t.Errorf("colour per line:\n%q", sb.String())
	}
	// A table that fits is drawn without rules between its rows.
	sb.Reset()
	writeTable(&sb, &table{header: []string{"a"}, rows: plainRows([][]string{{"1"}, {"2"}})}, 60, false)
	if sb.String() != "┌───┐\n│ a │\n├───┤\n│ 1 │\n│ 2 │\n└───┘\n" {
		t.Errorf("unwrapped table after a wrapped one:\n%s", sb.String())
	}
}

// TestDisplayWidth: widths are terminal columns, not characters: a CJK
// character takes two, so a paragraph of CJK words wraps at half the
// characters, and a table column of CJK names is as wide as it looks.
func TestDisplayWidth(t *testing.T) {
	if w := displayWidth("节点一号"); w != 8 {
		t.Errorf("displayWidth(节点一号) = %d, want 8", w)
	}
	if w := displayWidth("a · b — c…"); w != 10 {
		t.Errorf("ambiguous-width characters are not narrow: %d", w)
	}
	for _, l := range wrapLines(strings.Repeat("节点一号 ", 30), 40) {
		if displayWidth(l) > 40 {
			t.Errorf("line %q is %d columns wide, want <= 40", l, displayWidth(l))
		}
	}
	tb := &table{header: []string{"process", "n"}, rows: [][]cell{row("节点一号服务器", "1"), row("p", "2")}}
	var sb strings.Builder
	writeTable(&sb, tb, width, false)
	lines := strings.Split(strings.TrimSpace(sb.String()), "\n")
	for _, l := range lines {
		if displayWidth(l) != displayWidth(lines[0]) {
			t.Errorf("table rows of unequal width:\n%s", sb.String())
			break
		}
	}
}

// TestHeading: a heading wider than the line wraps, first at its " — ",
// and its underline spans its longest line; one that fits stays whole.
func TestHeading(t *testing.T) {
	var sb strings.Builder
	writeHeading(&sb, "short — fits", "=", 40, bad, false)
	if sb.String() != "short — fits\n============\n" {
		t.Errorf("short heading:\n%s", sb.String())
	}
	sb.Reset()
	writeHeading(&sb, "a/rather/long/file/name.json · ms · INVALID — 1 of 8 applicable properties fail", "-", 50, bad, false)
	want := "a/rather/long/file/name.json · ms · INVALID\n— 1 of 8 applicable properties fail\n" + strings.Repeat("-", 43) + "\n"
	if sb.String() != want {
		t.Errorf("long heading:\n%s\nwant\n%s", sb.String(), want)
	}
	sb.Reset()
	writeHeading(&sb, "节点一号服务器进程 failed at t=4 (run seq 39) — recovery line r=3", "-", 30, bad, true)
	for _, l := range strings.Split(strings.TrimSuffix(sb.String(), "\n"), "\n") {
		if displayWidth(l) > 30 {
			t.Errorf("line %q wider than 30 columns", l)
		}
		if !strings.HasPrefix(l, toneColor[bad]) && !strings.HasPrefix(l, "-") {
			t.Errorf("line %q not painted", l)
		}
	}
}

// plainRows returns rows of plain cells.
func plainRows(rows [][]string) [][]cell {
	out := make([][]cell, len(rows))
	for i, r := range rows {
		out[i] = row(r...)
	}
	return out
}
