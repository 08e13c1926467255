package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
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
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
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
// witness; n/a and unknown are skipped with their note.
func renderJUnit(w io.Writer, reports []Report) error {
	doc := junitSuites{Name: "ckpt", Suites: []junitSuite{}}
	for _, g := range groupByFile(reports) {
		s := junitSuite{Name: xmlSafe(reports[g[0]].File)}
		for _, i := range g {
			r := &reports[i]
			for _, p := range r.Properties {
				c := junitCase{Name: xmlSafe(r.Algorithm + "/" + p.Name), Classname: xmlSafe(r.File)}
				switch p.Status {
				case Pass:
				case Fail:
					c.Failure = junitFailureOf(p)
					s.Failures++
				default:
					msg := string(p.Status)
					if p.Note != "" {
						msg += ": " + p.Note
					}
					c.Skipped = &junitSkipped{Message: xmlSafe(msg)}
					s.Skipped++
				}
				s.Cases = append(s.Cases, c)
			}
		}
		s.Tests = len(s.Cases)
		doc.Tests += s.Tests
		doc.Failures += s.Failures
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
			fmt.Fprintf(&sb, "   events (seq): %s\n", joinSeqs(v.Seqs))
		}
		if b := becauseText(v.Because); b != "" {
			fmt.Fprintf(&sb, "   %s\n", strings.ReplaceAll(b, "\n", "\n   "))
		}
	}
	if sb.Len() == 0 {
		sb.WriteString(f.Message + "\n")
	}
	f.Message = xmlSafe(oneLine(f.Message))
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
