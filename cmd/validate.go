package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/pipeline"
)

func newValidateCmd(ios *IO) *cobra.Command {
	var quiet bool
	cmd := &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check the format and causality of traces and runs",
		Long: `Validate checks execution traces (ckpt/trace@1) against every rule of the
trace format — format, processes, times, kinds, message causality — and runs
(ckpt/run@1 or @2) structurally. It replays nothing.

Each FILE may be a trace or run in JSON or JSON Lines, optionally gzip-
compressed, "-" for standard input, or a directory, meaning every *.json,
*.jsonl, *.json.gz and *.jsonl.gz file in it (not recursively), in name
order; what else the directory holds is skipped, saying so on standard
error. One line is printed per file:

  FILE<TAB>ok<TAB>N processes, M events, K messages
  FILE<TAB>error<TAB>what is wrong, naming the event

(a count of 1 in the singular: "1 process"), and each invalid file's
error is also written once to standard error as "ckpt: FILE: trace event
N: what is wrong" ("run event N" in a run: the event with seq N). The
exit status is 2 if any file is invalid.`,
		Args: takesArgs("FILE..."),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runValidate(ios, quiet, args)
		},
	}
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "print only the files that are invalid")
	return cmd
}

// runValidate prints one line per file, only the invalid ones if quiet.
func runValidate(ios *IO, quiet bool, args []string) error {
	inputs, err := expandInputs(ios.ErrOut, args, "")
	if err != nil {
		return err
	}
	// A summary that cannot be written is an error (exit 2), as every
	// command's output is: scripts parse these lines. The first failed
	// write ends the summary.
	bad, werr := 0, error(nil)
	say := func(format string, a ...any) {
		if werr == nil {
			_, werr = fmt.Fprintf(ios.Out, format, a...)
		}
	}
	for _, in := range inputs {
		err := in.Err
		var line string
		if err == nil {
			line, err = validateOne(ios, in.Path)
		}
		if err != nil {
			bad++
			msg := pipeline.Describe(err)
			say("%s\terror\t%s\n", in.Path, msg)
			// SPEC §2 and §8: an invalid input is an error, reported once
			// on stderr as "FILE: trace event N: what"; the stdout line is
			// the per-file summary scripts parse.
			fmt.Fprintf(ios.ErrOut, "ckpt: %s: %s\n", in.Path, msg)
			continue
		}
		if !quiet {
			say("%s\tok\t%s\n", in.Path, line)
		}
	}
	if werr != nil {
		return werr
	}
	if bad > 0 {
		return &ExitError{Code: ExitInvalid}
	}
	return nil
}

// validateOne reads one trace or run and summarizes it.
func validateOne(ios *IO, path string) (string, error) {
	tr, run, err := ios.pipe().ReadAny(path)
	if err != nil {
		return "", err
	}
	if run != nil {
		return fmt.Sprintf("%s (run, algorithm %q)", counts(len(run.Processes), len(run.Events), len(run.Msgs)), run.Algorithm), nil
	}
	return counts(len(tr.Processes), len(tr.Events), len(tr.Msgs)), nil
}

// counts is "N processes, M events, K messages", each in the singular
// when it is 1.
func counts(procs, events, msgs int) string {
	return pipeline.Plural(procs, "process", "processes") + ", " + pipeline.Plural(events, "event", "events") + ", " + pipeline.Plural(msgs, "message", "messages")
}
