package report

import (
	"fmt"
	"io"
)

// Format is an output format of verify, check and report.
type Format string

// Output formats of SPEC §8.
const (
	Text     Format = "text"
	JSON     Format = "json"
	Markdown Format = "markdown"
	JUnit    Format = "junit"
)

// Formats lists every output format, the default first.
var Formats = []Format{Text, JSON, Markdown, JUnit}

// ParseFormat returns the format named s, or an error naming the choices.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown format %q: want text, json, markdown or junit", s)
}

// Options tune a rendering.
type Options struct {
	// Quiet prints only one "FILE\tALGORITHM\tVERDICT" line per report:
	// valid, invalid, unknown, or error (ALGORITHM "-" when the file could
	// not be read).
	Quiet bool
	// Color allows ANSI colour (only when writing to a terminal).
	Color bool
	// Full renders everything `ckpt report` shows (recovery lines, max
	// line, baseline, statistics); otherwise the verdict tables and
	// violations only.
	Full bool
	// Strict makes a report with an unknown property unknown rather than
	// valid (Judge), in every format.
	Strict bool
}

// AllValid reports whether no report is invalid in SPEC §9's sense (no
// property fails, the file could be checked). The exit status follows
// Worst, which also counts reports in which nothing passed.
func AllValid(reports []Report) bool {
	for i := range reports {
		if !reports[i].Valid {
			return false
		}
	}
	return true
}

// Render writes reports to w in format f. Quiet overrides the format: a
// CI script grepping verdicts should not care which format was asked for.
// Output is deterministic: the same reports give the same bytes.
func Render(w io.Writer, f Format, reports []Report, opts Options) error {
	if f == "" {
		f = Text // the zero Format is the default, as on the command line
	}
	if _, err := ParseFormat(string(f)); err != nil {
		return err
	}
	judgedReports := make([]Report, len(reports))
	for i := range reports {
		judgedReports[i] = judged(reports[i], opts.Strict)
	}
	reports = judgedReports
	if opts.Quiet {
		return renderQuiet(w, reports)
	}
	switch f {
	case JSON:
		return renderJSON(w, reports)
	case Markdown:
		return renderMarkdown(w, reports, opts)
	case JUnit:
		return renderJUnit(w, reports, opts.Strict)
	default:
		return renderText(w, reports, opts)
	}
}

func renderQuiet(w io.Writer, reports []Report) error {
	var b []byte
	for i := range reports {
		r := &reports[i]
		algo := r.Algorithm
		if algo == "" {
			algo = "-"
		}
		b = append(b, r.File...)
		b = append(b, '\t')
		b = append(b, algo...)
		b = append(b, '\t')
		b = append(b, r.Verdict...)
		b = append(b, '\n')
	}
	_, err := w.Write(b)
	return err
}
