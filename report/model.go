package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	texttable "github.com/ckpt-dev/ckpt/report/table"
	"github.com/ckpt-dev/ckpt/trace"
)

// The text and markdown renderings show the same content, so both are
// drawn from one neutral document: a list of blocks built once from the
// reports. Only the surface syntax differs between the two.

// tone colours a cell or heading in a terminal; markdown ignores it
// except that bad cells are set in bold.
type tone uint8

const (
	plain tone = iota
	good
	bad
	warn
)

type blockKind uint8

const (
	headingBlock blockKind = iota // level 1: one per report; level 2: a subsection
	paraBlock
	tableBlock
	listBlock
)

// cell is one table cell.
type cell struct {
	text string
	tone tone
}

// table is a table with a header; right marks numeric columns.
type table struct {
	header []string
	right  []bool
	// wrap marks the columns whose cells may wrap at spaces to fit the
	// text width (a vector time of many processes); nil: none.
	wrap []bool
	rows [][]cell
	// notes is the index of a column of free text that a narrow
	// rendering may move under the table (0: none, column 0 being a key).
	notes int
	// keys is how many leading columns identify a row (0 means 1): a
	// table split for width repeats them, and moved notes name them.
	keys int
}

// item is one entry of a list: a first line and indented detail lines.
type item struct {
	head   string
	strong string // shown emphasised before head (a property name)
	detail []string
}

type block struct {
	kind     blockKind
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
}

// document builds the blocks of reports. Reports of one file stay
// together (in the order the files first appear) so that a comparison of
// the algorithms can follow them.
// The reports must be judged (Render does it).
func document(reports []Report, full bool) []block {
	var doc []block
	for _, g := range groupByFile(reports) {
		var checked []int
		for _, i := range g {
			rb := reportBlocks(&reports[i], full)
			rb[0].fold = reports[i].Verdict == VerdictValid && len(reports) > 1
			doc = append(doc, rb...)
			if reports[i].Verdict != VerdictError {
				checked = append(checked, i)
			}
		}
		if full && len(checked) > 1 {
			doc = append(doc, comparisonBlocks(reports, checked)...)
		}
	}
	if len(reports) > 1 {
		doc = append(doc, summaryBlocks(reports)...)
	}
	return doc
}

// groupByFile returns the indexes of reports grouped by file, files in
// order of first appearance, reports of a file in input order.
func groupByFile(reports []Report) [][]int {
	var groups [][]int
	at := make(map[string]int, len(reports))
	for i := range reports {
		g, ok := at[reports[i].File]
		if !ok {
			g = len(groups)
			at[reports[i].File] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	return groups
}

func statusTone(s Status) tone {
	switch s {
	case Pass:
		return good
	case Fail:
		return bad
	default:
		return warn
	}
}

// reportHeading is "FILE · ALGORITHM · VERDICT — summary" (no algorithm
// part for a file that could not be read).
func reportHeading(r *Report) block {
	word, t := verdictWord(r.Verdict)
	name := r.File
	if r.Algorithm != "" {
		name += " · " + r.Algorithm
	}
	return block{
		kind: headingBlock, level: 1, code: r.File, tone: t,
		text: fmt.Sprintf("%s · %s — %s", name, word, verdictSummary(r, r.Verdict)),
	}
}

func reportBlocks(r *Report, full bool) []block {
	doc := append([]block{reportHeading(r)}, verdictBlocks(r)...)
	if r.Verdict == VerdictError {
		return doc
	}
	doc = append(doc, block{kind: tableBlock, table: verdictTable(r)})
	if items := violationItems(r); len(items) > 0 {
		doc = append(doc,
			block{kind: headingBlock, level: 2, text: "Violations"},
			block{kind: listBlock, numbered: true, items: items})
	}
	if !full {
		return doc
	}
	used := make([]bool, len(r.Baseline.Uncoordinated.Line))
	for i := range r.Recoveries {
		doc = append(doc, recoveryBlocks(r, i, used)...)
	}
	if len(r.Recoveries) > 0 {
		doc = append(doc, block{kind: paraBlock, text: legend})
	}
	doc = append(doc, baselineBlocks(r, used)...)
	doc = append(doc,
		block{kind: headingBlock, level: 2, text: "Statistics"},
		block{kind: tableBlock, table: statsTable(r)})
	return doc
}

func verdictTable(r *Report) *table {
	hasNote := false
	for _, p := range r.Properties {
		hasNote = hasNote || p.Note != ""
	}
	tb := &table{header: []string{"property", "status", "violations"}, right: []bool{false, false, true}}
	if hasNote {
		tb.header = append(tb.header, "note")
		tb.right = append(tb.right, false)
		tb.notes = 3
	}
	for i := range r.Properties {
		p := &r.Properties[i]
		row := []cell{{text: p.Name}, {text: string(p.Status), tone: statusTone(p.Status)}, {text: strconv.Itoa(len(p.Violations))}}
		if hasNote {
			row = append(row, cell{text: displayNote(r, p)})
		}
		tb.rows = append(tb.rows, row)
	}
	return tb
}

// violationItems lists every witness, numbered across properties in
// report order.
func violationItems(r *Report) []item {
	var items []item
	for _, p := range r.Properties {
		for _, v := range p.Violations {
			items = append(items, violationItem(p.Name, v))
		}
	}
	return items
}

func violationItem(prop string, v Violation) item {
	if v.Property != "" {
		prop = v.Property
	}
	it := item{strong: prop, head: v.Message}
	if len(v.Seqs) > 0 {
		it.detail = append(it.detail, seqsLabel(v.Seqs)+joinSeqs(v.Seqs))
	}
	if b := becauseText(v.Because); b != "" {
		it.detail = append(it.detail, b)
	}
	return it
}

// becauseText prefixes the explanation with "because" unless the checker
// already wrote it so.
func becauseText(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasPrefix(strings.ToLower(s), "because") {
		return s
	}
	return "because " + s
}

// seqsLabel names what the numbers of a witness are: seqs of the run (a
// trace's event indexes are another numbering, "trace event N").
func seqsLabel(seqs []int32) string {
	if len(seqs) == 1 {
		return "run seq "
	}
	return "run seqs "
}

func joinSeqs(seqs []int32) string {
	b := make([]byte, 0, 4*len(seqs))
	for i, s := range seqs {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(b, int64(s), 10)
	}
	return string(b)
}

// formatVT writes a PK vector time compactly: each process's count,
// prefixed "inc:" once that process has restarted (inc ≥ 1), so that the
// common failure-free entries stay short.
// vtTooWide reports whether a recovery line's vectors, beside its
// process names, would not fit the text width even in a table of those
// two columns alone (a real log of many processes with long names): only
// then may the vt column wrap, so that short vectors stay on one line.
func vtTooWide(line []LineEntry) bool {
	names, vts := 0, 0
	for i := range line {
		names = max(names, texttable.DisplayWidth(line[i].P))
		vts = max(vts, texttable.DisplayWidth(formatVT(line[i].VT)))
	}
	return names+vts+7 > texttable.Width // "│ name │ vt │"
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

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// matchBaseline finds the baseline failure for f: the first unused one of
// the same process at the same time. The baseline comes from the trace
// and the recovery from the run, so their seqs number different files;
// process and time identify a fail event in both.
func matchBaseline(r *Report, f FailureRef, used []bool) *UncoordinatedFailure {
	for i := range r.Baseline.Uncoordinated.Line {
		b := &r.Baseline.Uncoordinated.Line[i]
		if !used[i] && b.Failure.P == f.P && b.Failure.T == f.T {
			used[i] = true
			return b
		}
	}
	return nil
}

func recoveryBlocks(r *Report, i int, used []bool) []block {
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
		{kind: headingBlock, level: 2, text: title},
		{kind: tableBlock, table: tb},
		{kind: listBlock, items: story},
	}
}

// lineColumns says which optional columns a recovery line's table has:
// sn for MS, vt for PK.
type lineColumns struct{ sn, vt bool }

func lineColumnsOf(rec *Recovery) lineColumns {
	var c lineColumns
	for _, e := range rec.Line {
		c.sn = c.sn || e.Sn != nil
		c.vt = c.vt || e.VT != nil
	}
	return c
}

// table returns the empty table of a recovery line, its header set.
func (c lineColumns) table(rec *Recovery, baseline bool) *table {
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
func (c lineColumns) lead(e LineEntry) []cell {
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
func lineCells(rec *Recovery, e LineEntry) []cell {
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

func findMax(line []MaxLineEntry, p string) *MaxLineEntry {
	for i := range line {
		if line[i].P == p {
			return &line[i]
		}
	}
	return nil
}

func baselineCell(b *UncoordinatedFailure, p string) cell {
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
func storyLine(e LineEntry, hasSn bool) string {
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

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// algorithmDomino is the algorithm's own domino verdict, from its
// domino-free property.
func algorithmDomino(r *Report) cell {
	for _, p := range r.Properties {
		if p.Name == DominoFree {
			switch p.Status {
			case Pass:
				return cell{text: "no", tone: good}
			case Fail:
				return cell{text: "yes", tone: bad}
			default:
				return cell{text: string(p.Status), tone: warn}
			}
		}
	}
	return cell{text: "-"}
}

func baselineBlocks(r *Report, used []bool) []block {
	u := &r.Baseline.Uncoordinated
	dom := cell{text: yesNo(u.Domino)}
	if u.Domino {
		dom.tone = bad
	}
	tb := &table{
		header: []string{"measure", r.Algorithm, "uncoordinated"},
		right:  []bool{false, true, true},
		rows: [][]cell{
			{{text: "ops undone"}, {text: strconv.Itoa(r.Stats.Undone)}, {text: strconv.Itoa(u.Undone)}},
			{{text: "domino effect"}, algorithmDomino(r), dom},
			{{text: "useless checkpoints"}, {text: strconv.Itoa(r.Stats.Checkpoints.Useless)}, {text: strconv.Itoa(u.Useless)}},
		},
	}
	doc := []block{
		{kind: headingBlock, level: 2, text: r.Algorithm + " against uncoordinated checkpointing"},
		{kind: tableBlock, table: tb},
	}
	// Baseline failures no recovery table showed (a failure the run
	// ignored, or a run without recoveries) get a table of their own.
	rest := &table{
		header: []string{"failure", "process", "ckpt", "pos", "undone", "domino"},
		right:  []bool{false, false, true, true, true, false},
	}
	for i := range u.Line {
		if used[i] {
			continue
		}
		b := &u.Line[i]
		name := fmt.Sprintf("%s at t=%s", b.Failure.P, b.Failure.T)
		for _, e := range b.Line {
			d := cell{text: yesNo(e.Domino)}
			if e.Domino {
				d.tone = bad
			}
			ck := strconv.Itoa(int(e.Ckpt))
			if e.Ckpt < 0 {
				ck = "state"
			}
			rest.rows = append(rest.rows, []cell{{text: name}, {text: e.P},
				{text: ck}, {text: strconv.Itoa(int(e.Pos))},
				{text: strconv.Itoa(e.Undone)}, d})
		}
	}
	if len(rest.rows) > 0 {
		doc = append(doc,
			block{kind: paraBlock, text: "Uncoordinated rollback for failures without a recovery above:"},
			block{kind: tableBlock, table: rest})
	}
	return doc
}

// statRows are the statistics in display order, with a row for each
// discard reason given; comparison tables reuse them with one column per
// algorithm (and the union of their reasons).
func statRows(s *Stats, reasons []string) [][2]string {
	c := s.Checkpoints
	n := strconv.Itoa
	rows := [][2]string{
		{"events", n(s.Events)},
		{"messages", n(s.Messages)},
		{"checkpoints: initial", n(c.Initial)},
		{"checkpoints: basic", n(c.Basic)},
		{"checkpoints: forced", n(c.Forced)},
		{"checkpoints: recovery", n(c.Recovery)},
		{"checkpoints: useless", n(c.Useless)},
		{"checkpoints: collectable", n(c.Collectable)},
		{"ticks skipped", n(c.Skipped)},
		{"logged", n(s.Logged)},
		{"replayed", n(s.Replayed)},
		{"discarded", n(s.Discarded)},
	}
	for _, k := range reasons {
		rows = append(rows, [2]string{"discarded: " + k, n(s.DiscardedBy[k])})
	}
	return append(rows, [][2]string{
		{"resent", n(s.Resent)},
		{"control messages", n(s.ControlMessages)},
		{"token hops", n(s.TokenHops)},
		{"holds", n(s.Holds)},
		{"rollbacks", n(s.Rollbacks)},
		{"ops undone", n(s.Undone)},
		{"piggyback bytes", strconv.FormatInt(s.PiggybackBytes, 10)},
	}...)
}

// discardReasons lists the discard reasons of s in a fixed order: stale,
// orphan, duplicate, then any other alphabetically.
func discardReasons(s *Stats) []string {
	var out, others []string
	for _, k := range []string{"stale", "orphan", "duplicate"} {
		if _, ok := s.DiscardedBy[k]; ok {
			out = append(out, k)
		}
	}
	for k := range s.DiscardedBy {
		if k != "stale" && k != "orphan" && k != "duplicate" {
			others = append(others, k)
		}
	}
	slices.Sort(others)
	return append(out, others...)
}

func statsTable(r *Report) *table {
	tb := &table{header: []string{"statistic", "value"}, right: []bool{false, true}}
	for _, kv := range statRows(&r.Stats, discardReasons(&r.Stats)) {
		tb.rows = append(tb.rows, []cell{{text: kv[0]}, {text: kv[1]}})
	}
	return tb
}

// comparisonBlocks puts the algorithms that ran on one file side by side.
func comparisonBlocks(reports []Report, g []int) []block {
	tb := &table{header: []string{"measure"}, right: []bool{false}}
	for _, i := range g {
		tb.header = append(tb.header, reports[i].Algorithm)
		tb.right = append(tb.right, true)
	}
	row := func(name string, f func(r *Report) cell) {
		cells := []cell{{text: name}}
		for _, i := range g {
			cells = append(cells, f(&reports[i]))
		}
		tb.rows = append(tb.rows, cells)
	}
	row("verdict", func(r *Report) cell {
		w, t := verdictWord(r.Verdict)
		return cell{text: w, tone: t}
	})
	for _, name := range PropertyNames {
		row(name, func(r *Report) cell {
			for _, p := range r.Properties {
				if p.Name == name {
					return cell{text: string(p.Status), tone: statusTone(p.Status)}
				}
			}
			return cell{text: "-"}
		})
	}
	row("failures", func(r *Report) cell { return cell{text: strconv.Itoa(len(r.Recoveries))} })
	union := &Stats{DiscardedBy: map[string]int{}}
	for _, i := range g {
		for k := range reports[i].Stats.DiscardedBy {
			union.DiscardedBy[k] = 0
		}
	}
	reasons := discardReasons(union)
	cols := make([][][2]string, len(g))
	for j, i := range g {
		cols[j] = statRows(&reports[i].Stats, reasons)
	}
	for k := range cols[0] {
		cells := []cell{{text: cols[0][k][0]}}
		for j := range g {
			cells = append(cells, cell{text: cols[j][k][1]})
		}
		tb.rows = append(tb.rows, cells)
	}
	row("uncoordinated ops undone", func(r *Report) cell { return cell{text: strconv.Itoa(r.Baseline.Uncoordinated.Undone)} })
	return []block{
		{kind: headingBlock, level: 1, code: reports[g[0]].File, text: reports[g[0]].File + " · algorithms side by side"},
		{kind: tableBlock, table: tb},
	}
}

// summaryBlocks closes a rendering of several reports: one row per
// report, errors included, so that no file goes unmentioned.
func summaryBlocks(reports []Report) []block {
	tb := &table{
		header: []string{"file", "algorithm", "verdict", "failures", "details"},
		right:  []bool{false, false, false, true, false},
		notes:  4, keys: 2,
	}
	count := map[Verdict]int{}
	for i := range reports {
		r := &reports[i]
		count[r.Verdict]++
		w, t := verdictWord(r.Verdict)
		algo, failures := r.Algorithm, strconv.Itoa(len(r.Recoveries))
		if algo == "" {
			algo = "-"
		}
		if r.Verdict == VerdictError {
			failures = "-"
		}
		tb.rows = append(tb.rows, []cell{{text: r.File}, {text: algo}, {text: w, tone: t}, {text: failures}, {text: summaryDetails(r)}})
	}
	head := fmt.Sprintf("Summary: %d of %d reports valid", count[VerdictValid], len(reports))
	for _, v := range []Verdict{VerdictInvalid, VerdictUnknown} {
		if n := count[v]; n > 0 {
			head += fmt.Sprintf(", %d %s", n, v)
		}
	}
	if n := count[VerdictError]; n > 0 {
		head += ", " + plural(n, "error", "errors")
	}
	return []block{
		{kind: headingBlock, level: 1, text: head},
		{kind: tableBlock, table: tb},
	}
}

// summaryDetails is the last cell of a summary row: the failing
// properties, what is unknown, or the error.
func summaryDetails(r *Report) string {
	switch r.Verdict {
	case VerdictError:
		return r.Error
	case VerdictUnknown:
		c := countStatuses(r)
		if c.pass == 0 {
			return "nothing checked: " + strconv.Itoa(c.unknown) + " unknown"
		}
		return strconv.Itoa(c.unknown) + " unknown (--strict)"
	}
	var failing []string
	for _, p := range r.Properties {
		if p.Status == Fail {
			failing = append(failing, p.Name)
		}
	}
	if len(failing) == 0 {
		return "-"
	}
	return strings.Join(failing, ", ")
}
