// Package render writes what ckpt's commands find — verify's and
// check's reports (package report), explore's results and compare's
// tables — for people (text, markdown) and for CI (json, junit). Text
// and markdown are drawn from one document model (document.go) by one
// writer each; JSON and JUnit have one writer each too, so that every
// command's output looks, fits and escapes alike. Output is
// deterministic: the same input gives the same bytes.
package render

import (
	"fmt"
	"io"
	"strings"
)

// Format is an output format of SPEC §8.
type Format string

// The output formats.
const (
	Text     Format = "text"
	JSON     Format = "json"
	Markdown Format = "markdown"
	JUnit    Format = "junit"
)

// Formats lists every output format, the default first.
var Formats = []Format{Text, JSON, Markdown, JUnit}

// ParseFormat returns the format named s if it is one of choices (every
// format when none is given), or an error naming the choices.
func ParseFormat(s string, choices ...Format) (Format, error) {
	if len(choices) == 0 {
		choices = Formats
	}
	names := make([]string, len(choices))
	for i, f := range choices {
		if string(f) == s {
			return f, nil
		}
		names[i] = string(f)
	}
	last := len(names) - 1
	return "", fmt.Errorf("--format %q: want %s or %s", s, strings.Join(names[:last], ", "), names[last])
}

// orText checks f, the zero Format being text, the default.
func orText(f Format) (Format, error) {
	if f == "" {
		return Text, nil
	}
	return ParseFormat(string(f))
}

// Options tune a rendering.
type Options struct {
	// Quiet prints only one tab-separated line per verdict (verify:
	// "FILE\tALGORITHM\tVERDICT", ALGORITHM "-" when the file could not
	// be read), whatever the format: a CI script grepping verdicts should
	// not care which format was asked for.
	Quiet bool
	// Color allows ANSI colour in text (only when writing to a terminal).
	Color bool
	// Full renders everything `ckpt report` shows (recovery lines, max
	// line, baseline, statistics); otherwise the verdict tables and
	// violations only.
	Full bool
	// Strict makes a report with an unknown property unknown rather than
	// valid (report.Judge), in every format.
	Strict bool
}

// writeLines writes one tab-separated line per row: the quiet output of
// every command.
func writeLines(w io.Writer, rows [][]string) error {
	var sb strings.Builder
	for _, r := range rows {
		sb.WriteString(strings.Join(r, "\t"))
		sb.WriteByte('\n')
	}
	_, err := io.WriteString(w, sb.String())
	return err
}
