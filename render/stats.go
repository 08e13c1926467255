package render

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/ckpt-dev/ckpt/report"
)

// dominoCell says whether the baseline suffers a domino effect, in red
// if it does.
func dominoCell(domino bool) cell {
	if domino {
		return cell{text: "yes", tone: bad}
	}
	return cell{text: "no"}
}

// algorithmDomino is the algorithm's own domino verdict, from its
// domino-free property.
func algorithmDomino(r *report.Report) cell {
	s, ok := r.Status(report.DominoFree)
	switch {
	case !ok:
		return cell{text: "-"}
	case s == report.Pass:
		return cell{text: "no", tone: good}
	case s == report.Fail:
		return cell{text: "yes", tone: bad}
	}
	return cell{text: string(s), tone: warn}
}

func baselineBlocks(r *report.Report, used []bool) []block {
	u := &r.Baseline.Uncoordinated
	tb := &table{
		header: []string{"measure", r.Algorithm, "uncoordinated"},
		right:  []bool{false, true, true},
		rows: [][]cell{
			{{text: "ops undone"}, {text: strconv.Itoa(r.Stats.Undone)}, {text: strconv.Itoa(u.Undone)}},
			{{text: "domino effect"}, algorithmDomino(r), dominoCell(u.Domino)},
			{{text: "useless checkpoints"}, {text: strconv.Itoa(r.Stats.Checkpoints.Useless)}, {text: strconv.Itoa(u.Useless)}},
		},
	}
	doc := []block{
		{kind: heading, level: 2, text: r.Algorithm + " against uncoordinated checkpointing"},
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
			ck := strconv.Itoa(int(e.Ckpt))
			if e.Ckpt < 0 {
				ck = "state"
			}
			cells := row(name, e.P, ck, strconv.Itoa(int(e.Pos)), strconv.Itoa(e.Undone))
			rest.rows = append(rest.rows, append(cells, dominoCell(e.Domino)))
		}
	}
	if len(rest.rows) > 0 {
		doc = append(doc,
			block{kind: para, text: "Uncoordinated rollback for failures without a recovery above:"},
			block{kind: tableBlock, table: rest})
	}
	return doc
}

// statRows are the statistics in display order, with a row for each
// discard reason given; comparison tables reuse them with one column per
// algorithm (and the union of their reasons).
func statRows(s *report.Stats, reasons []string) [][2]string {
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

// discardReasons lists the discard reasons of every map given (each
// once) in a fixed order: stale, orphan, duplicate, then any other
// alphabetically.
func discardReasons(by ...map[string]int) []string {
	var others []string
	for _, m := range by {
		for k := range m {
			others = append(others, k)
		}
	}
	slices.Sort(others)
	others = slices.Compact(others)
	var out []string
	for _, k := range []string{"stale", "orphan", "duplicate"} {
		if i, ok := slices.BinarySearch(others, k); ok {
			out = append(out, k)
			others = slices.Delete(others, i, i+1)
		}
	}
	return append(out, others...)
}

func statsTable(r *report.Report) *table {
	tb := &table{header: []string{"statistic", "value"}, right: []bool{false, true}}
	for _, kv := range statRows(&r.Stats, discardReasons(r.Stats.DiscardedBy)) {
		tb.rows = append(tb.rows, []cell{{text: kv[0]}, {text: kv[1]}})
	}
	return tb
}

// comparisonBlocks puts the algorithms that ran on one file side by side.
func comparisonBlocks(reports []report.Report, g []int) []block {
	tb := &table{header: []string{"measure"}, right: []bool{false}}
	for _, i := range g {
		tb.header = append(tb.header, reports[i].Algorithm)
		tb.right = append(tb.right, true)
	}
	row := func(name string, f func(r *report.Report) cell) {
		cells := []cell{{text: name}}
		for _, i := range g {
			cells = append(cells, f(&reports[i]))
		}
		tb.rows = append(tb.rows, cells)
	}
	row("verdict", func(r *report.Report) cell {
		w, t := verdictWord(r.Verdict)
		return cell{text: w, tone: t}
	})
	for _, name := range report.PropertyNames {
		row(name, func(r *report.Report) cell {
			if s, ok := r.Status(name); ok {
				return cell{text: string(s), tone: statusTone(s)}
			}
			return cell{text: "-"}
		})
	}
	row("failures", func(r *report.Report) cell { return cell{text: strconv.Itoa(len(r.Recoveries))} })
	var by []map[string]int
	for _, i := range g {
		by = append(by, reports[i].Stats.DiscardedBy)
	}
	reasons := discardReasons(by...)
	for k, kv := range statRows(&reports[g[0]].Stats, reasons) {
		row(kv[0], func(r *report.Report) cell { return cell{text: statRows(&r.Stats, reasons)[k][1]} })
	}
	row("uncoordinated ops undone", func(r *report.Report) cell { return cell{text: strconv.Itoa(r.Baseline.Uncoordinated.Undone)} })
	return []block{
		{kind: heading, level: 1, code: reports[g[0]].File, text: reports[g[0]].File + " · algorithms side by side"},
		{kind: tableBlock, table: tb},
	}
}
