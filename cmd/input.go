package cmd

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/ckpt-dev/ckpt/output"
	"github.com/ckpt-dev/ckpt/pipeline"
	"github.com/ckpt-dev/ckpt/trace"
)

// Every command reads its traces and runs through its pipeline
// (IO.pipe, package pipeline); this file adapts it to the commands.

// Document kinds, as error messages name them.
const (
	traceDoc = pipeline.TraceDoc
	runDoc   = pipeline.RunDoc
)

// stdinHint is printed on stderr when a command reads a terminal.
const stdinHint = "ckpt: reading from standard input (the terminal); paste the JSON and end with Ctrl-D, or give a FILE"

// stdinReader is ios.In, which on a terminal first says on stderr that
// ckpt waits for it: a user who typed `ckpt verify -` would otherwise
// see nothing.
func stdinReader(ios *IO) io.Reader {
	if f, ok := ios.In.(*os.File); ok && isTerminal(f) {
		return &hintReader{r: f, w: ios.ErrOut}
	}
	return ios.In
}

// hintReader prints stdinHint before its first read.
type hintReader struct {
	r    io.Reader
	w    io.Writer
	once sync.Once
}

func (h *hintReader) Read(b []byte) (int, error) {
	h.once.Do(func() { fmt.Fprintln(h.w, stdinHint) })
	return h.r.Read(b)
}

// openStdin returns stdin past a byte order mark, decompressed if gzip.
func openStdin(ios *IO) io.Reader { return ios.pipe().OpenStdin() }

// readTrace reads the trace at path ("-": stdin).
func readTrace(ios *IO, path string) (*trace.Trace, error) { return ios.pipe().ReadTrace(path) }

// readRun reads the run at path ("-": stdin).
func readRun(ios *IO, path string) (*trace.Run, error) { return ios.pipe().ReadRun(path) }

// labelled names the document kind of err's InputError, if it has none.
func labelled(err error, doc string) error { return pipeline.Labelled(err, doc) }

// describe is err as one line without the file name (pipeline.Describe).
func describe(err error) string { return pipeline.Describe(err) }

// osErrorText is an OS error in words a user acts on.
func osErrorText(err error) string { return pipeline.OSErrorText(err) }

// plural is "1 thing" or "n things".
func plural(n int, one, many string) string { return pipeline.Plural(n, one, many) }

// expandInputs is pipeline.Expand, saying on w what directories held
// besides the inputs; stdin given twice is an exit-2 error.
func expandInputs(w io.Writer, args []string, want string) ([]pipeline.Input, error) {
	in, notes, err := pipeline.Expand(args, want)
	for _, n := range notes {
		fmt.Fprintf(w, "ckpt: note: %s\n", n)
	}
	return in, invalid(err)
}

// Outputs are written through package output; these names are the
// commands'.

// writeOutput writes what fill produces to path, atomically, or to w
// when path is "" or "-" (output.Write).
func writeOutput(path string, w io.Writer, fill func(io.Writer) error) error {
	return output.Write(path, w, fill)
}

// readingInput records that path is an input, which no output may
// replace.
func readingInput(path string) { output.Reading(path) }

// unwrapPath returns the error inside a *os.PathError, or err.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// CleanupOnSignal makes SIGINT and SIGTERM remove the temporary files
// of outputs being written, then exit 130 or 143. main installs it;
// tests that call Main do not.
func CleanupOnSignal() { output.CleanupOnSignal() }

// isTerminal reports whether w is a character device (a terminal), by
// the file's mode: no dependency beyond os.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
