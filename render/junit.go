package render

import (
	"encoding/xml"
	"io"
	"strings"
	"unicode/utf8"
)

// The JUnit XML that CI test reporters read (the de-facto schema of Ant's
// junit task, as Jenkins, GitLab and the GitHub test-report actions accept
// it). No timestamps, hostnames or durations: output must be
// deterministic.

type junitSuites struct {
	XMLName xml.Name `xml:"testsuites"`
	Name    string   `xml:"name,attr"`
	junitCounts
	Suites []junitSuite `xml:"testsuite"`
}

// junitCounts count a suite's test cases (or all suites') by outcome.
type junitCounts struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Errors   int `xml:"errors,attr"`
	Skipped  int `xml:"skipped,attr"`
}

type junitSuite struct {
	Name string `xml:"name,attr"`
	junitCounts
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
	Skipped   *junitFailure `xml:"skipped,omitempty"`
}

// junitFailure is a case's <error>, <failure> or <skipped> (which has
// neither type nor text).
type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",cdata"`
}

// add appends c to s, counting it by its outcome.
func (s *junitSuite) add(c junitCase) {
	switch {
	case c.Error != nil:
		s.Errors++
	case c.Failure != nil:
		s.Failures++
	case c.Skipped != nil:
		s.Skipped++
	}
	s.Cases = append(s.Cases, c)
	s.Tests++
}

// junitMessage is a failure or an error whose message is all it says.
func junitMessage(typ, msg string) *junitFailure {
	msg = xmlSafe(msg)
	return &junitFailure{Message: msg, Type: typ, Text: msg + "\n"}
}

// writeJUnit writes doc, indented, after the XML header, with its
// counts summed from its suites.
func writeJUnit(w io.Writer, doc junitSuites) error {
	for _, s := range doc.Suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Skipped += s.Skipped
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

// xmlSafe replaces what XML 1.0 cannot carry at all (most control
// characters, invalid UTF-8) with U+FFFD: such text can come from trace
// labels, and one bad byte would make the whole file unparsable.
func xmlSafe(s string) string {
	// Both return s itself when nothing needs replacing.
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
