package cmd

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/ckpt-dev/ckpt/output"
	"github.com/ckpt-dev/ckpt/pipeline"
)

// Every command reads its traces and runs through its pipeline
// (IO.pipe, package pipeline); this file adapts it to the commands.

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

// expandInputs is pipeline.Expand, saying on w what directories held
// besides the inputs; stdin given twice is an exit-2 error.
func expandInputs(w io.Writer, args []string, want string) ([]pipeline.Input, error) {
	in, notes, err := pipeline.Expand(args, want)
	for _, n := range notes {
		fmt.Fprintf(w, "ckpt: note: %s\n", n)
	}
	return in, err
}

// Commands that take one file (replay, report, diagram, explore, export)
// read it through here, so that a directory or an unreadable file gets
// the same clear line from all of them — "FILE: is a directory: ckpt
// explore takes one trace (verify takes directories)", "FILE: no such
// file or directory" — never the OS's "read FILE: is a directory".

// dirError refuses a directory at path ("-" never is one) where the
// command (e.g. "ckpt explore") takes one file of kind takes ("trace",
// "trace or run", "run"), naming the commands that read directories of
// that kind; nil when path is no directory.
func dirError(command, takes, path string) error {
	if st, err := os.Stat(path); path == "-" || err != nil || !st.IsDir() {
		return nil
	}
	readers := " (verify and check take directories)"
	switch takes {
	case pipeline.TraceDoc:
		readers = " (verify takes directories)"
	case pipeline.RunDoc:
		readers = " (check takes directories)"
	case "trace or run":
	default:
		readers = ""
	}
	return fmt.Errorf("is a directory: %s takes one %s%s", command, takes, readers)
}

// readOne reads the one file a command takes with read, refusing a
// directory; its errors are exit-2 errors naming the file, worded by
// pipeline.Describe.
func readOne[T any](command, takes, path string, read func(string) (T, error)) (T, error) {
	var v T
	err := dirError(command, takes, path)
	if err == nil {
		v, err = read(path)
	}
	if err != nil {
		return v, fmt.Errorf("%s: %s", path, pipeline.Describe(err))
	}
	return v, nil
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
