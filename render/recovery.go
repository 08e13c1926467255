package render

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/ckpt-dev/ckpt/report"
)

// vtTooWide reports whether a recovery line's vectors, beside its
// process names, would not fit the text width even in a table of those
// two columns alone (a real log of many processes with long names): only
// then may the vt column wrap, so that short vectors stay on one line.
func vtTooWide(line []report.LineEntry) bool {
	w := []int{0, 0} // names, vectors
	for i := range line {
		w[0] = max(w[0], displayWidth(line[i].P))
		w[1] = max(w[1], displayWidth(formatVT(line[i].VT)))
	}
	return tableWidth(w, allColumns(2)) > width
}

// formatVT writes a PK vector time compactly: each process's count,
// prefixed "inc:" once that process has restarted (inc ≥ 1), so that the
// common failure-free entries stay short.
func formatVT(vt report.VT) string {
	if vt == nil {
		return "-"
	}
	b := []byte{'['}
	for i, e := range vt {
		if i > 0 {
			b = append(b, ' ')
		}
		if e.Inc != 0 {
			b = strconv.AppendInt(b, int64(e.Inc), 10)
			b = append(b, ':')
		}
		b = strconv.AppendInt(b, int64(e.Count), 10)
	}
	return string(append(b, ']'))
}

func signed(n int) string {
	if n > 0 {
		return "+" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// matchBaseline finds the baseline failure for f: the first unused one of
// the same process at the same time. The baseline comes from the trace
// and the recovery from the run, so their seqs number different files;
// process and time identify a fail event in both.
func matchBaseline(r *report.Report, f report.FailureRef, used []bool) *report.UncoordinatedFailure {
	for i := range r.Baseline.Uncoordinated.Line {
		b := &r.Baseline.Uncoordinated.Line[i]
		if !used[i] && b.Failure.P == f.P && b.Failure.T == f.T {
			used[i] = true
			return b
		}
	}
	return nil
}

func recoveryBlocks(r *report.Report, i int, used []bool) []block {
	rec := &r.Recoveries[i]
	f := rec.Failure
	title := fmt.Sprintf("Failure %d of %d: %s failed at t=%s (run seq %d)", i+1, len(r.Recoveries), f.P, f.T, f.Seq)
	switch {
	case rec.RecLine != nil:
		title += fmt.Sprintf(" — recovery line r=%d", *rec.RecLine)
	case rec.Announcement != nil:
		title += fmt.Sprintf(" — announcement inc %d, k %d", rec.Announcement.Inc, rec.Announcement.K)
	}
	title += ", " + plural(rec.ControlMessages, "control message", "control messages")
	base := matchBaseline(r, f, used)
	var story []item
	for _, e := range rec.Line {
		story = append(story, item{head: storyLine(e)})
	}
	blocks := []block{{kind: heading, level: 2, text: title}, {kind: tableBlock, table: lineTable(rec, base)}}
	if rec.Note != "" {
		blocks = append(blocks, block{kind: para, text: "Note: " + rec.Note + "."})
	}
	return append(blocks, block{kind: list, items: story})
}

// lineHeader and lineRight are a recovery line's columns, and which of
// them are numbers.
var (
	lineHeader = []string{"process", "restored", "sn", "vt", "cause", "pos", "undone", "replayed",
		"discarded", "resent", "max line", "extra", "uncoordinated"}
	lineRight = []bool{false, false, true, false, false, true, true, true, true, true, false, true, false}
)

// lineTable is a recovery line as a table, one row per process. Only MS
// has sn and only PK vt, and uncoordinated needs a matching baseline
// failure: a column none has is left out.
func lineTable(rec *report.Recovery, base *report.UncoordinatedFailure) *table {
	tb := &table{header: lineHeader, right: lineRight}
	maxAt := firstByP(rec.MaxLine, func(m *report.MaxLineEntry) string { return m.P })
	var baseAt map[string]*report.UncoordinatedEntry
	if base != nil {
		baseAt = firstByP(base.Line, func(u *report.UncoordinatedEntry) string { return u.P })
	}
	for _, e := range rec.Line {
		tb.rows = append(tb.rows, lineCells(e, maxAt[e.P], baseAt[e.P]))
	}
	if vtTooWide(rec.Line) {
		tb.wrap = make([]bool, len(lineHeader))
		tb.wrap[3] = true
	}
	if base == nil {
		dropColumn(tb, 12)
	}
	if !slices.ContainsFunc(rec.Line, func(e report.LineEntry) bool { return e.VT != nil }) {
		dropColumn(tb, 3)
	}
	if !slices.ContainsFunc(rec.Line, func(e report.LineEntry) bool { return e.Sn != nil }) {
		dropColumn(tb, 2)
	}
	return tb
}

// firstByP maps each process name to its first entry in es, the one a
// scan would find: a line holds an entry per process, and scanning the
// other lines for each of its rows took time quadratic in the processes.
func firstByP[E any](es []E, p func(*E) string) map[string]*E {
	at := make(map[string]*E, len(es))
	for i := range es {
		if _, ok := at[p(&es[i])]; !ok {
			at[p(&es[i])] = &es[i]
		}
	}
	return at
}

// lineCells returns a line entry's row: process, restored checkpoint, sn,
// vt, cause, pos, counts, maximum consistent line (m, nil if it has no
// entry for the process), extra rollback and where the baseline goes
// back (u, nil likewise).
func lineCells(e report.LineEntry, m *report.MaxLineEntry, u *report.UncoordinatedEntry) []cell {
	restored, sn, cause := "-", "-", e.Cause
	if e.Restore != nil {
		restored = "ckpt " + strconv.Itoa(int(*e.Restore))
	}
	if e.Sn != nil {
		sn = strconv.Itoa(int(*e.Sn))
	}
	if cause == "" {
		cause = "none"
		if e.Restore != nil {
			cause = "-"
		}
	}
	extra := cell{text: "-"}
	if e.Extra != nil {
		extra.text = signed(*e.Extra)
	}
	if e.Extra != nil && *e.Extra > 0 {
		extra.tone = warn
	}
	undone := cell{text: strconv.Itoa(e.Undone)}
	if e.Undone > 0 {
		undone.tone = warn
	}
	return []cell{{text: e.P}, {text: restored}, {text: sn}, {text: formatVT(e.VT)}, {text: cause},
		{text: strconv.Itoa(int(e.Pos))}, undone, {text: strconv.Itoa(e.Replayed)}, {text: strconv.Itoa(e.Discarded)},
		{text: strconv.Itoa(e.Resent)}, {text: maxLineText(m)}, extra, baselineCell(u)}
}

// maxLineText is where the maximum consistent recovery line puts a
// process: m is its entry, nil if the line has none.
func maxLineText(m *report.MaxLineEntry) string {
	switch {
	case m == nil:
		return "-"
	case m.Ckpt < 0:
		// No checkpoint: the line keeps the process's state at the
		// failure instant.
		return fmt.Sprintf("state @ %d", m.Pos)
	}
	return fmt.Sprintf("ckpt %d @ %d", m.Ckpt, m.Pos)
}

// legend explains the recovery table's columns once per report.
const legend = "restored: the checkpoint the process went back to (- if it kept its state); " +
	"pos: its ops that stay live; undone: ops rolled back; replayed: receipts taken from the message log; " +
	"max line: the maximum consistent recovery line of checkpoints alone (ckpt @ pos, or state @ pos where it keeps the state at the failure); " +
	"extra: ops undone beyond that line (negative where message logging saved work); " +
	"uncoordinated: where uncoordinated checkpointing would go back for this failure alone."

// baselineCell is where the baseline sends a process back: u is its
// entry, nil if there is no matching baseline failure or it has none.
func baselineCell(u *report.UncoordinatedEntry) cell {
	if u == nil {
		return cell{text: "-"}
	}
	c := cell{text: fmt.Sprintf("ckpt %d, %d undone", u.Ckpt, u.Undone)}
	if u.Ckpt < 0 {
		// -1: it keeps its state at the failure, which is no
		// checkpoint.
		c.text = fmt.Sprintf("state @ %d, %d undone", u.Pos, u.Undone)
	}
	if u.Domino {
		c.text += ", domino"
		c.tone = bad
	}
	return c
}

// rollbackCause says why a process that did not fail rolled back, by
// its line entry's cause.
var rollbackCause = map[string]string{
	"request": " on a Rollback request",
	"message": " on a message from a recovery it had not applied",
	"token":   " on the failure token, its state being an orphan",
}

// storyLine says in words where a process went and why: the table has
// the numbers, this line is what a reader takes away.
func storyLine(e report.LineEntry) string {
	if e.Restore == nil {
		switch e.Cause {
		case "", "none":
			return e.P + " kept its state (nothing undone)"
		case "recovery":
			return e.P + " took a recovery checkpoint instead of rolling back (nothing undone)"
		}
		return fmt.Sprintf("%s handled the failure (%s) without rolling back", e.P, e.Cause)
	}
	target := "checkpoint " + strconv.Itoa(int(*e.Restore))
	if e.Sn != nil {
		target += fmt.Sprintf(" (sn %d)", *e.Sn)
	} else if e.VT != nil {
		target += " (vt " + formatVT(e.VT) + ")"
	}
	s := fmt.Sprintf("%s rolled back to %s%s", e.P, target, rollbackCause[e.Cause])
	if e.Cause == "restart" {
		s = fmt.Sprintf("%s failed and restarted from %s", e.P, target)
	}
	if e.Undone == 0 {
		s += ", undoing nothing"
	} else {
		s += fmt.Sprintf(", undoing %s", plural(e.Undone, "op", "ops"))
	}
	if e.Replayed > 0 {
		s += fmt.Sprintf(", replaying %s from the log", plural(e.Replayed, "message", "messages"))
	}
	s += fmt.Sprintf(", resuming at op %d", e.Pos)
	switch {
	case e.Extra == nil:
	case *e.Extra > 0:
		s += fmt.Sprintf("; %s more than the maximum consistent line", plural(*e.Extra, "op", "ops"))
	case *e.Extra < 0:
		s += fmt.Sprintf("; logging saved %s against the maximum consistent line", plural(-*e.Extra, "op", "ops"))
	}
	return s
}
