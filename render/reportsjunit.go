package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ckpt-dev/ckpt/report"
)

// reportsJUnit is one testsuite per file (files in order of first
// appearance) and one testcase per (algorithm, property), named
// "ALGORITHM/PROPERTY" with the file as classname. A fail carries every
// witness; n/a and unknown are skipped with their note (with strict,
// unknown is a failure). A file that could not be checked is one
// testcase "input" (or "ALGORITHM/input") with an <error>; a report in
// which nothing passed gets a failing "ALGORITHM/verdict" case, so that a
// reporter does not show it green. The suite's properties give each
// algorithm's verdict and failures exercised.
func reportsJUnit(reports []report.Report, strict bool) junitSuites {
	doc := junitSuites{Name: "ckpt", Suites: []junitSuite{}}
	for _, g := range groupByFile(reports) {
		s := junitSuite{Name: xmlSafe(reports[g[0]].File)}
		for _, i := range g {
			junitReport(&s, &reports[i], strict)
		}
		doc.Suites = append(doc.Suites, s)
	}
	return doc
}

// junitReport adds the test cases and properties of one report to s.
func junitReport(s *junitSuite, r *report.Report, strict bool) {
	prefix := ""
	if r.Algorithm != "" {
		prefix = r.Algorithm + "/"
	}
	newCase := func(name string) junitCase {
		return junitCase{Name: xmlSafe(prefix + name), Classname: xmlSafe(r.File)}
	}
	if r.Verdict == report.VerdictError {
		c := newCase("input")
		c.Error = junitMessage("error", oneLine(r.Error))
		s.add(c)
		return
	}
	failed := false
	for i := range r.Properties {
		p := &r.Properties[i]
		c := newCase(p.Name)
		switch {
		case p.Status == report.Pass:
		case p.Status == report.Fail:
			c.Failure = junitFailureOf(*p)
		case p.Status == report.Unknown && strict:
			c.Failure = junitMessage("unknown", "unknown (--strict): "+displayNote(r, p))
		default:
			msg := string(p.Status)
			if note := displayNote(r, p); note != "" {
				msg += ": " + note
			}
			c.Skipped = &junitFailure{Message: xmlSafe(msg)}
		}
		failed = failed || c.Failure != nil
		s.add(c)
	}
	if r.Verdict == report.VerdictUnknown && !failed {
		c := newCase("verdict")
		c.Failure = junitMessage("unknown", "unknown: no applicable property passes, nothing was checked")
		s.add(c)
	}
	junitProps(s, r, prefix)
}

// junitProps records the report's verdict and failures exercised as
// suite properties, and says in system-out when no failure happened.
func junitProps(s *junitSuite, r *report.Report, prefix string) {
	if s.Properties == nil {
		s.Properties = &junitProperties{}
	}
	s.Properties.Props = append(s.Properties.Props,
		junitProperty{Name: xmlSafe(prefix + "verdict"), Value: string(r.Verdict)},
		junitProperty{Name: xmlSafe(prefix + "failures_exercised"), Value: strconv.Itoa(len(r.Recoveries))})
	switch {
	case len(r.Recoveries) > 0:
	case recovers(r):
		s.SystemOut += xmlSafe(r.Algorithm + ": no failure happens here, so recovery was not exercised; `" + exploreHint +
			"` injects failures at every point.\n")
	default:
		s.SystemOut += xmlSafe(r.Algorithm + ": no failure happens here, and " + r.Algorithm + " has no recovery: only failure-free " +
			"behaviour was checked; `" + compareHint + "` measures how far a failure would roll it back.\n")
	}
}

// junitFailureOf summarises a failed property: the first witness as the
// message a CI page shows in one line, every witness in the body.
func junitFailureOf(p report.Property) *junitFailure {
	f := &junitFailure{Type: xmlSafe(p.Name), Message: "property " + p.Name + " fails"}
	if len(p.Violations) > 0 {
		f.Message = p.Violations[0].Message
		if n := len(p.Violations) - 1; n > 0 {
			f.Message += fmt.Sprintf(" (and %d more)", n)
		}
	}
	var sb strings.Builder
	for i, it := range violationItems([]report.Property{p}) {
		if i > 0 {
			sb.WriteByte('\n')
		}
		fmt.Fprintf(&sb, "%d. %s\n", i+1, it.head)
		for _, d := range it.detail {
			fmt.Fprintf(&sb, "   %s\n", strings.ReplaceAll(d, "\n", "\n   "))
		}
	}
	if sb.Len() == 0 {
		sb.WriteString(f.Message + "\n")
	}
	f.Message = xmlSafe(oneLine(f.Message))
	f.Text = xmlSafe(sb.String())
	return f
}
