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

// hintReader prints stdinHint before its first read: a user who typed
// `ckpt verify -` on a terminal would otherwise see nothing.
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
	return fmt.Errorf("is a directory: %s takes one %s%s", command, takes, dirReaders[takes])
}

// dirReaders names, by the kind of file a command takes, the commands
// that read directories of that kind.
var dirReaders = map[string]string{
	pipeline.TraceDoc: " (verify takes directories)",
	pipeline.RunDoc:   " (check takes directories)",
	"trace or run":    " (verify and check take directories)",
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

// CleanupOnSignal makes SIGINT, SIGTERM and SIGHUP remove the temporary files
// of outputs being written, then exit 130, 143 or 129. main installs it;
// tests that call Main do not.
func CleanupOnSignal() { output.CleanupOnSignal() }

// isTerminal reports whether f (a reader or writer) is a character
// device (a terminal), by the file's mode: no dependency beyond os.
func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	if !ok {
		return false
	}
	st, err := file.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
