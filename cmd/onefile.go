package cmd

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/pipeline"
)

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
