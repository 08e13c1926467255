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

// Options tune a rendering.
type Options struct {
	// Quiet prints only one "FILE\tALGORITHM\tvalid|invalid" line per
	// report.
	Quiet bool
	// Color allows ANSI colour (only when writing to a terminal).
	Color bool
	// Full renders everything `ckpt report` shows (recovery lines, max
	// line, baseline, statistics); otherwise the verdict tables and
	// violations only.
	Full bool
}

// Render writes reports to w in format f. (Placeholder: the report issue
// implements the formats.)
func Render(w io.Writer, f Format, reports []Report, opts Options) error {
	return fmt.Errorf("format %q: not implemented yet", f)
}
