// Package render writes an exploration's Result for people (text,
// markdown) and for CI (json, junit), in the formats `ckpt verify` uses.
// Text and markdown show the same content, built once as a list of
// blocks; only the surface syntax differs.
package render

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/ckpt-dev/ckpt/explore"
	texttable "github.com/ckpt-dev/ckpt/report/table"
)

type blockKind uint8

const (
	heading blockKind = iota // level 1: the result; level 2: a section
	para
	tableBlock
	list
)

type block struct {
	kind  blockKind
	level int
	text  string
	bad   bool // a heading or item that reports a failure
	table *table
	items []item
}

// table is a table of package table: text fits it to the terminal,
// markdown keeps it whole.
type table = texttable.Table

// item is a list entry: a head line and indented details.
type item struct {
	head   string
	detail []string
}

// document builds the blocks of r.
func document(r *explore.Result) []block {
	doc := []block{
		{kind: heading, level: 1, text: title(r), bad: !r.Valid},
		{kind: para, text: scopeText(&r.Scope)},
		{kind: tableBlock, table: verdictTable(r)},
	}
	if items := witnessItems(r); len(items) > 0 {
		doc = append(doc, block{kind: heading, level: 2, text: "Witnesses"}, block{kind: list, items: items})
	}
	if r.Scope.Failures > 0 {
		doc = append(doc,
			block{kind: heading, level: 2, text: "Worst case, per injected failure"},
			block{kind: tableBlock, table: worstTable(r)},
			block{kind: heading, level: 2, text: "Ops undone per injected failure"},
			block{kind: tableBlock, table: perFailureTable(r)})
	}
	return doc
}

func title(r *explore.Result) string {
	if r.Valid {
		return fmt.Sprintf("explore %s — VALID: no schedule fails", r.File)
	}
	var bad []string
	for _, a := range r.Algorithms {
		n := 0
		for _, p := range a.Properties {
			if p.Failing > 0 {
				n++
			}
		}
		if n > 0 {
			bad = append(bad, fmt.Sprintf("%s fails %s", a.Algorithm, plural(n, "property", "properties")))
		}
	}
	return fmt.Sprintf("explore %s — INVALID: %s", r.File, strings.Join(bad, ", "))
}

// scopeText states the claim: what was explored and how completely.
func scopeText(s *explore.Scope) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Scope: up to %s at %s", plural(s.Failures, "injected failure", "injected failures"), plural(s.Points, "point", "points"))
	if s.StripFailures {
		b.WriteString(" (the trace's own failures stripped)")
	}
	if s.Delays {
		fmt.Fprintf(&b, ", %s", pluralBig(s.DelayVectors, "delay vector", "delay vectors"))
	} else {
		b.WriteString(", recorded message delays")
	}
	fmt.Fprintf(&b, ": %s", pluralBig(s.Schedules, "schedule", "schedules"))
	if s.Classes != nil && s.Reduced {
		fmt.Fprintf(&b, " in %s (%s merged)", pluralBig(s.Classes, "class", "classes"), s.Merged)
	}
	fmt.Fprintf(&b, ". %s: %s run", s.Mode, plural64(s.Run, "schedule", "schedules"))
	if s.Mode == explore.Sampled {
		fmt.Fprintf(&b, " (seed %d, budget %d)", s.Seed, s.Budget)
	}
	if s.Shard != "1/1" {
		fmt.Fprintf(&b, " in shard %s", s.Shard)
	}
	fmt.Fprintf(&b, ", covering %s (%s).", pluralBig(s.Covered, "schedule", "schedules"), percent(s.Coverage))
	return b.String()
}

func verdictTable(r *explore.Result) *table {
	// Too wide for a terminal (a long witness path), text lists the
	// witness under the table, keyed by algorithm and property.
	t := &table{Header: []string{"algorithm", "property", "status", "failing schedules", "of them replayed", "witness"},
		Right: []bool{false, false, false, true, true, false}, Keys: 2, Notes: 5}
	for _, a := range r.Algorithms {
		for _, p := range a.Properties {
			path := ""
			if p.Witness != nil {
				path = p.Witness.Path
			}
			t.Rows = append(t.Rows, texttable.Row(a.Algorithm, p.Name, string(p.Status),
				strconv.FormatInt(p.Failing, 10), strconv.FormatInt(p.FailingClasses, 10), path))
		}
	}
	return t
}

func witnessItems(r *explore.Result) []item {
	var items []item
	for _, a := range r.Algorithms {
		for _, p := range a.Properties {
			w := p.Witness
			if w == nil {
				continue
			}
			it := item{head: fmt.Sprintf("%s %s: %s", a.Algorithm, p.Name, scheduleText(&w.Schedule))}
			if w.Path != "" {
				it.detail = append(it.detail, "witness: "+w.Path)
			}
			it.detail = append(it.detail, fmt.Sprintf("shrunk in %s: events %d → %d, processes %d → %d, messages %d → %d",
				plural(w.Tests, "replay", "replays"), w.OriginalEvents, w.Events, w.OriginalProcesses, w.Processes, w.OriginalMessages, w.Messages))
			items = append(items, it)
		}
	}
	return items
}

// scheduleText describes a schedule in one line.
func scheduleText(s *explore.ScheduleInfo) string {
	var parts []string
	for _, f := range s.Failures {
		parts = append(parts, fmt.Sprintf("crash %s (t=%s, down %ss)", f.Where, f.T, f.Down))
	}
	for _, d := range s.Delays {
		parts = append(parts, fmt.Sprintf("%s arrives %ss late", d.Msg, d.Extra))
	}
	if len(parts) == 0 {
		parts = append(parts, "the trace as recorded")
	}
	return fmt.Sprintf("schedule %d: %s", s.Ordinal, strings.Join(parts, "; "))
}

func worstTable(r *explore.Result) *table {
	// The schedules are sentences: text wraps them (and the longest
	// measure's name) to the terminal.
	t := &table{Header: []string{"algorithm", "worst case", "value", "first reached by"}, Right: []bool{false, false, true, false},
		Wrap: []bool{false, true, false, true}}
	for _, a := range r.Algorithms {
		for _, x := range []struct {
			what string
			e    explore.Extreme
		}{
			{"ops undone", a.Worst.Undone},
			{"processes rolled back", a.Worst.Processes},
			{"extra rollback beyond the max. consistent line", a.Worst.Extra},
		} {
			where := ""
			if x.e.Schedule != nil {
				where = scheduleText(x.e.Schedule)
			}
			t.Rows = append(t.Rows, texttable.Row(a.Algorithm, x.what, strconv.Itoa(x.e.Value), where))
		}
	}
	return t
}

func perFailureTable(r *explore.Result) *table {
	t := &table{Header: []string{"checkpointing", "failures", "mean ops undone", "max ops undone"}, Right: []bool{false, true, true, true}}
	row := func(name string, p explore.PerFailure) {
		t.Rows = append(t.Rows, texttable.Row(name, strconv.FormatInt(p.Failures, 10), strconv.FormatFloat(p.Mean, 'f', 2, 64), strconv.Itoa(p.Max)))
	}
	for _, a := range r.Algorithms {
		row(a.Algorithm, a.PerFailure)
	}
	row("uncoordinated", r.Baseline)
	return t
}

func plural(n int, one, many string) string { return plural64(int64(n), one, many) }

func plural64(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(n, 10) + " " + many
}

func pluralBig(n *big.Int, one, many string) string {
	if n == nil {
		return "? " + many
	}
	if n.IsInt64() && n.Int64() == 1 {
		return "1 " + one
	}
	return n.String() + " " + many
}

// percent writes a coverage fraction; anything short of complete never
// rounds up to 100%.
func percent(f float64) string {
	if f >= 1 {
		return "100%"
	}
	s := strconv.FormatFloat(f*100, 'f', 2, 64)
	if s == "100.00" {
		s = "99.99"
	}
	return s + "%"
}
