package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ckpt-dev/ckpt/explore"
	"github.com/ckpt-dev/ckpt/report"
)

// Explore writes an exploration's result to w in format f (the zero
// Format is text). Quiet prints one "FILE\tALGORITHM\tvalid|invalid"
// line per algorithm, whatever the format (as verify does).
func Explore(w io.Writer, f Format, r *explore.Result, opts Options) error {
	f, err := orText(f)
	if err != nil {
		return err
	}
	if opts.Quiet {
		var rows [][]string
		for _, a := range r.Algorithms {
			v := map[bool]string{true: "valid", false: "invalid"}[a.Valid]
			if r.Stopped && a.Valid {
				v = "stopped" // not a clean result: part of the space was not run
			}
			rows = append(rows, []string{r.File, a.Algorithm, v})
		}
		return writeLines(w, rows)
	}
	switch f {
	case JSON:
		return WriteJSON(w, r)
	case JUnit:
		return writeJUnit(w, exploreJUnit(r))
	}
	return writeDoc(w, f, exploreDoc(r), opts.Color)
}

// exploreErrorEntry is the JSON document of a file explore could not
// explore: explore's own fields (file, valid, algorithms), and verify's
// error entry's verdict and message, so that a consumer of either reads
// it alike.
type exploreErrorEntry struct {
	File       string   `json:"file"`
	Valid      bool     `json:"valid"`
	Verdict    string   `json:"verdict"`
	Error      string   `json:"error"`
	Algorithms []string `json:"algorithms"`
}

// ExploreError writes, in format f, the entry of a file that could not
// be read or explored (msg says why, without the file name): the bad
// file is reported in every format, as verify reports one — a heading
// and the message in text and markdown, an object with "verdict":
// "error" in JSON, a JUnit <error> test case, and "FILE\t-\terror" with
// Quiet — so that a CI job reading the output sees the error, not an
// empty file.
func ExploreError(w io.Writer, f Format, file, msg string, opts Options) error {
	f, err := orText(f)
	if err != nil {
		return err
	}
	msg = strings.Join(strings.Fields(msg), " ")
	if opts.Quiet {
		return writeLines(w, [][]string{{file, "-", "error"}})
	}
	doc := []block{{kind: heading, level: 1, text: fmt.Sprintf("explore %s — ERROR: not explored", file), tone: bad},
		{kind: para, text: msg}}
	switch f {
	case JSON:
		return WriteJSON(w, exploreErrorEntry{File: file, Verdict: string(report.VerdictError), Error: msg, Algorithms: []string{}})
	case JUnit:
		s := junitSuite{Name: xmlSafe("explore " + file)}
		s.add(junitCase{Name: "input", Classname: xmlSafe(file), Error: junitMessage("error", msg)})
		return writeJUnit(w, junitSuites{Name: "ckpt explore", Suites: []junitSuite{s}})
	}
	return writeDoc(w, f, doc, opts.Color)
}

// exploreDoc builds the blocks of r.
func exploreDoc(r *explore.Result) []block {
	tn := bad
	if r.Valid {
		tn = good
	}
	doc := []block{
		{kind: heading, level: 1, text: exploreTitle(r), tone: tn},
		{kind: para, text: scopeText(&r.Scope)},
		{kind: tableBlock, table: exploreVerdictTable(r)},
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
		for _, a := range r.Algorithms {
			if a.Note != "" {
				doc = append(doc, block{kind: para, text: "Note: " + a.Note + "."})
			}
		}
	}
	return doc
}

func exploreTitle(r *explore.Result) string {
	switch r.Verdict {
	case explore.VerdictStopped:
		return fmt.Sprintf("explore %s — STOPPED: %s", r.File, stoppedText(r))
	case report.VerdictValid:
		if r.Scope.Mode == explore.Sampled { // ux6: a sample read as the whole
			return fmt.Sprintf("explore %s — VALID: no sampled schedule fails (%s of the space covered)", r.File, percent(r.Scope.Coverage))
		}
		return fmt.Sprintf("explore %s — VALID: no schedule fails", r.File)
	case report.VerdictUnknown:
		return fmt.Sprintf("explore %s — UNKNOWN: no schedule fails, but no property passes for an algorithm", r.File)
	}
	return fmt.Sprintf("explore %s — INVALID: %s", r.File, failsText(r))
}

// stoppedText says how far a stopped exploration came and what it found.
func stoppedText(r *explore.Result) string {
	s := fmt.Sprintf("explored %d of %s", r.Scope.Run, plural(r.Scope.ToRun, "schedule", "schedules"))
	if fails := failsText(r); fails != "" {
		return s + "; " + fails
	}
	return s + ", none failed so far"
}

// failsText lists how many properties each algorithm fails.
func failsText(r *explore.Result) string {
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
	return strings.Join(bad, ", ")
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
	fmt.Fprintf(&b, ". %s: %s run", s.Mode, plural(s.Run, "schedule", "schedules"))
	if s.Mode == explore.Sampled {
		fmt.Fprintf(&b, " (seed %d, budget %d)", s.Seed, s.Budget)
	}
	if s.Shard != "1/1" {
		fmt.Fprintf(&b, " in shard %s", s.Shard)
	}
	fmt.Fprintf(&b, ", covering %s (%s).", pluralBig(s.Covered, "schedule", "schedules"), percent(s.Coverage))
	return b.String()
}

func exploreVerdictTable(r *explore.Result) *table {
	// Too wide for a terminal (a long witness path), text lists the
	// witness under the table, keyed by algorithm and property.
	t := &table{header: []string{"algorithm", "property", "status", "failing schedules", "of them replayed", "witness"},
		right: []bool{false, false, false, true, true, false}, keys: 2, notes: 5}
	for _, a := range r.Algorithms {
		for _, p := range a.Properties {
			path := ""
			if p.Witness != nil {
				path = p.Witness.Path
			}
			t.rows = append(t.rows, row(a.Algorithm, p.Name, string(p.Status),
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
	t := &table{header: []string{"algorithm", "worst case", "value", "first reached by"}, right: []bool{false, false, true, false},
		wrap: []bool{false, true, false, true}}
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
			t.rows = append(t.rows, row(a.Algorithm, x.what, strconv.Itoa(x.e.Value), where))
		}
	}
	return t
}

func perFailureTable(r *explore.Result) *table {
	t := &table{header: []string{"checkpointing", "failures", "mean ops undone", "max ops undone"}, right: []bool{false, true, true, true}}
	add := func(name string, p explore.PerFailure) {
		t.rows = append(t.rows, row(name, strconv.FormatInt(p.Failures, 10), strconv.FormatFloat(p.Mean, 'f', 2, 64), strconv.Itoa(p.Max)))
	}
	for _, a := range r.Algorithms {
		add(a.Algorithm, a.PerFailure)
	}
	add("uncoordinated", r.Baseline)
	return t
}

// exploreJUnit is one testsuite ("explore FILE") with one testcase per
// algorithm and property, named "ALGORITHM/PROPERTY" as verify names
// them; a failing one says how many schedules fail and carries the
// witness.
func exploreJUnit(r *explore.Result) junitSuites {
	s := junitSuite{Name: xmlSafe("explore " + r.File)}
	for _, a := range r.Algorithms {
		for _, p := range a.Properties {
			c := junitCase{Name: xmlSafe(a.Algorithm + "/" + p.Name), Classname: xmlSafe(r.File)}
			switch p.Status {
			case report.Fail:
				c.Failure = exploreFailure(&r.Scope, &p)
			case report.NA, report.Unknown:
				c.Skipped = &junitFailure{Message: string(p.Status)}
			}
			s.add(c)
		}
	}
	if r.Stopped {
		s.add(junitCase{Name: "complete", Classname: xmlSafe(r.File), Error: junitMessage("stopped", "stopped: "+stoppedText(r))})
	}
	return junitSuites{Name: "ckpt explore", Suites: []junitSuite{s}}
}

func exploreFailure(s *explore.Scope, p *explore.PropertyResult) *junitFailure {
	f := junitMessage(p.Name, fmt.Sprintf("%d of %s schedules fail %s", p.Failing, s.Covered, p.Name))
	if w := p.Witness; w != nil {
		f.Text += xmlSafe("first: " + scheduleText(&w.Schedule) + "\n")
		if w.Path != "" {
			f.Text += xmlSafe("witness: " + w.Path + "\n")
		}
	}
	return f
}
