package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/ckpt-dev/ckpt/explore"
	"github.com/ckpt-dev/ckpt/report"
)

// Options tune a rendering.
type Options struct {
	// Quiet prints one "FILE\tALGORITHM\tvalid|invalid" line per
	// algorithm, whatever the format (as verify does).
	Quiet bool
	// Color allows ANSI colour in text (only on a terminal).
	Color bool
}

// Render writes r to w in format f (verify's formats: text, json,
// markdown, junit). Output is deterministic.
func Render(w io.Writer, f report.Format, r *explore.Result, opts Options) error {
	if f == "" {
		f = report.Text
	}
	if _, err := report.ParseFormat(string(f)); err != nil {
		return err
	}
	if opts.Quiet {
		return quiet(w, r)
	}
	switch f {
	case report.JSON:
		return writeJSON(w, r)
	case report.Markdown:
		return writeMarkdown(w, document(r))
	case report.JUnit:
		return writeJUnit(w, r)
	}
	return writeText(w, document(r), opts.Color)
}

func quiet(w io.Writer, r *explore.Result) error {
	var sb strings.Builder
	for _, a := range r.Algorithms {
		v := "valid"
		if !a.Valid {
			v = "invalid"
		}
		fmt.Fprintf(&sb, "%s\t%s\t%s\n", r.File, a.Algorithm, v)
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// writeJSON writes r as one indented object with a trailing newline;
// message ids and labels are not HTML-escaped.
func writeJSON(w io.Writer, r *explore.Result) error {
	return report.WriteJSON(w, r)
}
