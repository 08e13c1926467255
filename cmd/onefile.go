package cmd

import (
	"fmt"
	"os"

	"github.com/ckpt-dev/ckpt/trace"
)

// Commands that take one file (replay, report, diagram, explore, export)
// read it through here, so that a directory or an unreadable file gets
// the same clear line from all of them — "FILE: is a directory: ckpt
// explore takes one trace (verify takes directories)", "FILE: no such
// file or directory" — never the OS's "read FILE: is a directory".

// dirError is the message for a directory given where the command
// (e.g. "ckpt explore") takes one file of kind takes ("trace", "trace or
// run", "run"); it names the commands that read directories of that kind.
func dirError(command, takes string) error {
	readers := " (verify and check take directories)"
	switch takes {
	case traceDoc:
		readers = " (verify takes directories)"
	case runDoc:
		readers = " (check takes directories)"
	case "trace or run":
	default:
		readers = ""
	}
	return fmt.Errorf("is a directory: %s takes one %s%s", command, takes, readers)
}

// isDir reports whether path names a directory ("-" never does).
func isDir(path string) bool {
	if path == "-" {
		return false
	}
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// readOne reads the one file a command takes with read, refusing a
// directory; its errors are exit-2 errors naming the file, worded by
// describe.
func readOne[T any](ios *IO, command, takes, path string, read func(*IO, string) (T, error)) (T, error) {
	var zero T
	if isDir(path) {
		return zero, invalidf("%s: %s", path, dirError(command, takes).Error())
	}
	v, err := read(ios, path)
	if err != nil {
		return zero, invalidf("%s: %s", path, describe(err))
	}
	return v, nil
}

// traceOrRun is what readAny reads: a trace or a run.
type traceOrRun struct {
	tr  *trace.Trace
	run *trace.Run
}

// readEither is readAny for readOne.
func readEither(ios *IO, path string) (traceOrRun, error) {
	tr, run, err := ios.pipe().ReadAny(path)
	return traceOrRun{tr, run}, err
}
