package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/ckpt-dev/ckpt/report"
)

// errorEntry is the JSON document of a file explore could not explore:
// explore's own fields (file, valid, algorithms), and verify's error
// entry's verdict and message, so that a consumer of either reads it
// alike.
type errorEntry struct {
	File       string   `json:"file"`
	Valid      bool     `json:"valid"`
	Verdict    string   `json:"verdict"`
	Error      string   `json:"error"`
	Algorithms []string `json:"algorithms"`
}

// RenderError writes, in format f, the entry of a file that could not
// be read or explored (msg says why, without the file name): the bad
// file is reported in every format, as verify reports one — a heading
// and the message in text and markdown, an object with "verdict":
// "error" in JSON, a JUnit <error> test case, and "FILE\t-\terror" with
// Quiet — so that a CI job reading the output sees the error, not an
// empty file.
func RenderError(w io.Writer, f report.Format, file, msg string, opts Options) error {
	if f == "" {
		f = report.Text
	}
	if _, err := report.ParseFormat(string(f)); err != nil {
		return err
	}
	msg = strings.Join(strings.Fields(msg), " ")
	if opts.Quiet {
		_, err := fmt.Fprintf(w, "%s\t-\terror\n", file)
		return err
	}
	doc := []block{{kind: heading, level: 1, text: fmt.Sprintf("explore %s — ERROR: not explored", file), bad: true},
		{kind: para, text: msg}}
	switch f {
	case report.JSON:
		return report.WriteJSON(w, errorEntry{File: file, Verdict: string(report.VerdictError), Error: msg, Algorithms: []string{}})
	case report.Markdown:
		return writeMarkdown(w, doc)
	case report.JUnit:
		c := junitCase{Name: "input", Classname: xmlSafe(file),
			Error: &junitFailure{Message: xmlSafe(msg), Type: "error", Text: xmlSafe(msg) + "\n"}}
		s := junitSuite{Name: xmlSafe("explore " + file), Tests: 1, Errors: 1, Cases: []junitCase{c}}
		return encodeJUnit(w, junitSuites{Name: "ckpt explore", Tests: 1, Errors: 1, Suites: []junitSuite{s}})
	}
	return writeText(w, doc, opts.Color)
}
