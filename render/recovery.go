package render

import (
	"fmt"
	"strconv"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// formatVT writes a PK vector time compactly: each process's count,
// prefixed "inc:" once that process has restarted (inc ≥ 1), so that the
// common failure-free entries stay short.
// vtTooWide reports whether a recovery line's vectors, beside its
// process names, would not fit the text width even in a table of those
// two columns alone (a real log of many processes with long names): only
// then may the vt column wrap, so that short vectors stay on one line.
func vtTooWide(line []report.LineEntry) bool {
	names, vts := 0, 0
	for i := range line {
		names = max(names, displayWidth(line[i].P))
		vts = max(vts, displayWidth(formatVT(line[i].VT)))
	}
	return names+vts+7 > width // "│ name │ vt │"
}

func formatVT(vt trace.VT) string {
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
	cols := lineColumnsOf(rec)
	tb := cols.table(rec, base != nil)
	var story []item
	for _, e := range rec.Line {
		row := append(cols.lead(e), lineCells(rec, e)...)
		if base != nil {
			row = append(row, baselineCell(base, e.P))
		}
		tb.rows = append(tb.rows, row)
		story = append(story, item{head: storyLine(e, cols.sn)})
	}
	return []block{
		{kind: heading, level: 2, text: title},
		{kind: tableBlock, table: tb},
		{kind: list, items: story},
	}
}

// lineColumns says which optional columns a recovery line's table has:
// sn for MS, vt for PK.
type lineColumns struct{ sn, vt bool }

func lineColumnsOf(rec *report.Recovery) lineColumns {
	var c lineColumns
	for _, e := range rec.Line {
		c.sn = c.sn || e.Sn != nil
		c.vt = c.vt || e.VT != nil
	}
	return c
}

// table returns the empty table of a recovery line, its header set.
func (c lineColumns) table(rec *report.Recovery, baseline bool) *table {
	tb := &table{}
	col := func(name string, right bool) {
		tb.header = append(tb.header, name)
		tb.right = append(tb.right, right)
	}
	col("process", false)
	col("restored", false)
	if c.sn {
		col("sn", true)
	}
	if c.vt {
		col("vt", false)
		if vtTooWide(rec.Line) {
			tb.wrap = make([]bool, len(tb.header))
			tb.wrap[len(tb.header)-1] = true
		}
	}
	for _, name := range []string{"cause", "pos", "undone", "replayed", "discarded", "resent", "max line", "extra"} {
		col(name, name != "cause" && name != "max line")
	}
	if baseline {
		col("uncoordinated", false)
	}
	return tb
}

// lead returns a line entry's process, restored checkpoint and, where
// the table has them, its sn and vt.
func (c lineColumns) lead(e report.LineEntry) []cell {
	restored := "-"
	if e.Restore != nil {
		restored = "ckpt " + strconv.Itoa(int(*e.Restore))
	}
	row := []cell{{text: e.P}, {text: restored}}
	if c.sn {
		sn := "-"
		if e.Sn != nil {
			sn = strconv.Itoa(int(*e.Sn))
		}
		row = append(row, cell{text: sn})
	}
	if c.vt {
		row = append(row, cell{text: formatVT(e.VT)})
	}
	return row
}

// lineCells returns a line entry's cause, pos, counts, maximum
// consistent line and extra rollback.
func lineCells(rec *report.Recovery, e report.LineEntry) []cell {
	cause := e.Cause
	if cause == "" {
		cause = "none"
		if e.Restore != nil {
			cause = "-"
		}
	}
	maxLine := "-"
	if m := findMax(rec.MaxLine, e.P); m != nil {
		if m.Ckpt >= 0 {
			maxLine = fmt.Sprintf("ckpt %d @ %d", m.Ckpt, m.Pos)
		} else {
			// No checkpoint: the line keeps the process's state at the
			// failure instant.
			maxLine = fmt.Sprintf("state @ %d", m.Pos)
		}
	}
	extra := cell{text: signed(e.Extra)}
	if e.Extra > 0 {
		extra.tone = warn
	}
	undone := cell{text: strconv.Itoa(e.Undone)}
	if e.Undone > 0 {
		undone.tone = warn
	}
	return []cell{{text: cause}, {text: strconv.Itoa(int(e.Pos))}, undone,
		{text: strconv.Itoa(e.Replayed)}, {text: strconv.Itoa(e.Discarded)},
		{text: strconv.Itoa(e.Resent)}, {text: maxLine}, extra}
}

// legend explains the recovery table's columns once per report.
const legend = "restored: the checkpoint the process went back to (- if it kept its state); " +
	"pos: its ops that stay live; undone: ops rolled back; replayed: receipts taken from the message log; " +
	"max line: the maximum consistent recovery line of checkpoints alone (ckpt @ pos, or state @ pos where it keeps the state at the failure); " +
	"extra: ops undone beyond that line (negative where message logging saved work); " +
	"uncoordinated: where uncoordinated checkpointing would go back for this failure alone."

func findMax(line []report.MaxLineEntry, p string) *report.MaxLineEntry {
	for i := range line {
		if line[i].P == p {
			return &line[i]
		}
	}
	return nil
}

func baselineCell(b *report.UncoordinatedFailure, p string) cell {
	for _, u := range b.Line {
		if u.P == p {
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
	}
	return cell{text: "-"}
}

// storyLine says in words where a process went and why: the table has
// the numbers, this line is what a reader takes away.
func storyLine(e report.LineEntry, hasSn bool) string {
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
	if hasSn && e.Sn != nil {
		target += fmt.Sprintf(" (sn %d)", *e.Sn)
	} else if e.VT != nil {
		target += " (vt " + formatVT(e.VT) + ")"
	}
	var s string
	switch e.Cause {
	case "restart":
		s = fmt.Sprintf("%s failed and restarted from %s", e.P, target)
	case "request":
		s = fmt.Sprintf("%s rolled back to %s on a Rollback request", e.P, target)
	case "message":
		s = fmt.Sprintf("%s rolled back to %s on a message from a recovery it had not applied", e.P, target)
	case "token":
		s = fmt.Sprintf("%s rolled back to %s on the failure token, its state being an orphan", e.P, target)
	default:
		s = fmt.Sprintf("%s rolled back to %s", e.P, target)
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
	case e.Extra > 0:
		s += fmt.Sprintf("; %s more than the maximum consistent line", plural(e.Extra, "op", "ops"))
	case e.Extra < 0:
		s += fmt.Sprintf("; logging saved %s against the maximum consistent line", plural(-e.Extra, "op", "ops"))
	}
	return s
}
