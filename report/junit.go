package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	texttable "github.com/ckpt-dev/ckpt/report/table"
)

// The JUnit XML that CI test reporters read (the de-facto schema of Ant's
// junit task, as Jenkins, GitLab and the GitHub test-report actions accept
// it). No timestamps, hostnames or durations: output must be
// deterministic.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string           `xml:"name,attr"`
	Tests      int              `xml:"tests,attr"`
	Failures   int              `xml:"failures,attr"`
	Errors     int              `xml:"errors,attr"`
	Skipped    int              `xml:"skipped,attr"`
	Properties *junitProperties `xml:"properties,omitempty"`
	Cases      []junitCase      `xml:"testcase"`
	SystemOut  string           `xml:"system-out,omitempty"`
}

type junitProperties struct {
	Props []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Error     *junitFailure `xml:"error,omitempty"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",cdata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr,omitempty"`
}

// renderJUnit writes one testsuite per file (files in order of first
// appearance) and one testcase per (algorithm, property), named
// "ALGORITHM/PROPERTY" with the file as classname. A fail carries every
// witness; n/a and unknown are skipped with their note (with strict,
// unknown is a failure). A file that could not be checked is one
// testcase "input" (or "ALGORITHM/input") with an <error>; a report in
// which nothing passed gets a failing "ALGORITHM/verdict" case, so that a
// reporter does not show it green. The suite's properties give each
// algorithm's verdict and failures exercised.
func renderJUnit(w io.Writer, reports []Report, strict bool) error {
	doc := junitSuites{Name: "ckpt", Suites: []junitSuite{}}
	for _, g := range groupByFile(reports) {
		s := junitSuite{Name: xmlSafe(reports[g[0]].File)}
		for _, i := range g {
			junitReport(&s, &reports[i], strict)
		}
		s.Tests = len(s.Cases)
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Skipped += s.Skipped
		doc.Suites = append(doc.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// junitReport adds the test cases and properties of one report to s.
func junitReport(s *junitSuite, r *Report, strict bool) {
	prefix := ""
	if r.Algorithm != "" {
		prefix = r.Algorithm + "/"
	}
	newCase := func(name string) junitCase {
		return junitCase{Name: xmlSafe(prefix + name), Classname: xmlSafe(r.File)}
	}
	if r.Verdict == VerdictError {
		c := newCase("input")
		msg := xmlSafe(texttable.OneLine(r.Error))
		c.Error = &junitFailure{Message: msg, Type: "error", Text: msg + "\n"}
		s.Cases = append(s.Cases, c)
		s.Errors++
		return
	}
	failed := false
	for i := range r.Properties {
		p := &r.Properties[i]
		c := newCase(p.Name)
		switch {
		case p.Status == Pass:
		case p.Status == Fail:
			c.Failure = junitFailureOf(*p)
		case p.Status == Unknown && strict:
			msg := xmlSafe("unknown (--strict): " + displayNote(r, p))
			c.Failure = &junitFailure{Message: msg, Type: "unknown", Text: msg + "\n"}
		default:
			msg := string(p.Status)
			if note := displayNote(r, p); note != "" {
				msg += ": " + note
			}
			c.Skipped = &junitSkipped{Message: xmlSafe(msg)}
			s.Skipped++
		}
		if c.Failure != nil {
			s.Failures++
			failed = true
		}
		s.Cases = append(s.Cases, c)
	}
	if r.Verdict == VerdictUnknown && !failed {
		c := newCase("verdict")
		msg := "unknown: no applicable property passes, nothing was checked"
		c.Failure = &junitFailure{Message: msg, Type: "unknown", Text: msg + "\n"}
		s.Cases = append(s.Cases, c)
		s.Failures++
	}
	junitProps(s, r, prefix)
}

// junitProps records the report's verdict and failures exercised as
// suite properties, and says in system-out when no failure happened.
func junitProps(s *junitSuite, r *Report, prefix string) {
	if s.Properties == nil {
		s.Properties = &junitProperties{}
	}
	s.Properties.Props = append(s.Properties.Props,
		junitProperty{Name: xmlSafe(prefix + "verdict"), Value: string(r.Verdict)},
		junitProperty{Name: xmlSafe(prefix + "failures_exercised"), Value: strconv.Itoa(len(r.Recoveries))})
	if len(r.Recoveries) == 0 {
		s.SystemOut += xmlSafe(strings.TrimSuffix(prefix, "/") + ": no failure happens here, so recovery was not exercised; " +
			"`ckpt explore TRACE` injects failures at every point.\n")
	}
}

// junitFailureOf summarises a failed property: the first witness as the
// message a CI page shows in one line, every witness in the body.
func junitFailureOf(p Property) *junitFailure {
	f := &junitFailure{Type: xmlSafe(p.Name), Message: "property " + p.Name + " fails"}
	if len(p.Violations) > 0 {
		f.Message = p.Violations[0].Message
		if n := len(p.Violations) - 1; n > 0 {
			f.Message += fmt.Sprintf(" (and %d more)", n)
		}
	}
	var sb strings.Builder
	for i, v := range p.Violations {
		if i > 0 {
			sb.WriteByte('\n')
		}
		fmt.Fprintf(&sb, "%d. %s\n", i+1, v.Message)
		if len(v.Seqs) > 0 {
			fmt.Fprintf(&sb, "   %s%s\n", seqsLabel(v.Seqs), joinSeqs(v.Seqs))
		}
		if b := becauseText(v.Because); b != "" {
			fmt.Fprintf(&sb, "   %s\n", strings.ReplaceAll(b, "\n", "\n   "))
		}
	}
	if sb.Len() == 0 {
		sb.WriteString(f.Message + "\n")
	}
	f.Message = xmlSafe(texttable.OneLine(f.Message))
	f.Text = xmlSafe(sb.String())
	return f
}

// xmlSafe replaces what XML 1.0 cannot carry at all (most control
// characters, invalid UTF-8) with U+FFFD: such text can come from trace
// labels, and one bad byte would make the whole file unparsable.
func xmlSafe(s string) string {
	ok := true
	for _, r := range s {
		if !xmlChar(r) {
			ok = false
			break
		}
	}
	if ok && utf8.ValidString(s) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if !xmlChar(r) {
			return utf8.RuneError
		}
		return r
	}, strings.ToValidUTF8(s, string(utf8.RuneError)))
}

func xmlChar(r rune) bool {
	return r == 0x9 || r == 0xA || r == 0xD ||
		(r >= 0x20 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF)
}
