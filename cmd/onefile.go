package cmd

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

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

// replayFlagNames are the flags that say how to replay a trace, which a
// run (checked or drawn as it is) ignores.
var replayFlagNames = []string{"algo", "variant", "restart-delay", "control-delay"}

// givenReplayFlags names the replay flags given on cmd's command line.
func givenReplayFlags(cmd *cobra.Command) []string {
	var given []string
	for _, name := range replayFlagNames {
		if cmd.Flags().Changed(name) {
			given = append(given, "--"+name)
		}
	}
	return given
}

// ignoredNote says, for a run at path, that the replay flags given do
// not apply to it ("" when none was given): report --algo pk RUN used to
// ignore --algo without a word.
func ignoredNote(path string, given []string) string {
	if len(given) == 0 {
		return ""
	}
	verb := "is"
	if len(given) > 1 {
		verb = "are"
	}
	return fmt.Sprintf("%s: a run is taken as it is, replaying nothing: %s %s ignored", path, strings.Join(given, ", "), verb)
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
