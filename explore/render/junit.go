package render

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/ckpt-dev/ckpt/explore"
	"github.com/ckpt-dev/ckpt/report"
)

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
	Error     *junitFailure `xml:"error,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
}

type junitSkipped struct {
	Message string `xml:"message,attr,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",cdata"`
}

// writeJUnit writes one testsuite ("explore FILE") with one testcase per
// algorithm and property, named "ALGORITHM/PROPERTY" as verify names
// them; a failing one says how many schedules fail and carries the
// witness. No timestamps or durations: output is deterministic.
func writeJUnit(w io.Writer, r *explore.Result) error {
	s := junitSuite{Name: xmlSafe("explore " + r.File)}
	for _, a := range r.Algorithms {
		for _, p := range a.Properties {
			c := junitCase{Name: xmlSafe(a.Algorithm + "/" + p.Name), Classname: xmlSafe(r.File)}
			switch p.Status {
			case report.Fail:
				c.Failure = junitFailureOf(&r.Scope, &p)
				s.Failures++
			case report.NA, report.Unknown:
				c.Skipped = &junitSkipped{Message: string(p.Status)}
				s.Skipped++
			}
			s.Cases = append(s.Cases, c)
		}
	}
	s.Tests = len(s.Cases)
	return encodeJUnit(w, junitSuites{Name: "ckpt explore", Tests: s.Tests, Failures: s.Failures, Skipped: s.Skipped, Suites: []junitSuite{s}})
}

// encodeJUnit writes doc, indented, after the XML header.
func encodeJUnit(w io.Writer, doc junitSuites) error {
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

func junitFailureOf(s *explore.Scope, p *explore.PropertyResult) *junitFailure {
	f := &junitFailure{Type: p.Name,
		Message: fmt.Sprintf("%d of %s schedules fail %s", p.Failing, s.Covered, p.Name)}
	var sb strings.Builder
	sb.WriteString(f.Message + "\n")
	if w := p.Witness; w != nil {
		sb.WriteString("first: " + scheduleText(&w.Schedule) + "\n")
		if w.Path != "" {
			sb.WriteString("witness: " + w.Path + "\n")
		}
	}
	f.Message = xmlSafe(f.Message)
	f.Text = xmlSafe(sb.String())
	return f
}

// xmlSafe replaces what XML 1.0 cannot carry (most control characters,
// invalid UTF-8) with U+FFFD.
func xmlSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == 0x9 || r == 0xA || r == 0xD || (r >= 0x20 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || r >= 0x10000 {
			return r
		}
		return utf8.RuneError
	}, strings.ToValidUTF8(s, string(utf8.RuneError)))
}
