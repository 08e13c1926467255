package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/spf13/cobra"
)

type validateOptions struct {
	quiet bool
}

func newValidateCmd(ios *IO) *cobra.Command {
	o := &validateOptions{}
	cmd := &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check the format and causality of traces and runs",
		Long: `Validate checks execution traces (ckpt/trace@1) against every rule of the
trace format — format, processes, times, kinds, message causality — and runs
(ckpt/run@1) structurally. It replays nothing.

Each FILE may be a trace or run in JSON or JSON Lines, optionally gzip-
compressed, "-" for standard input, or a directory, meaning every *.json,
*.jsonl, *.json.gz and *.jsonl.gz file in it (not recursively), in name
order. One line is printed per file:

  FILE<TAB>ok<TAB>N processes, M events, K messages
  FILE<TAB>error<TAB>what is wrong, naming the event

and each invalid file's error is also written once to standard error as
"ckpt: FILE: event N: what is wrong". The exit status is 2 if any file is invalid.`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runValidate(ios, o, args)
		},
	}
	cmd.Flags().BoolVarP(&o.quiet, "quiet", "q", false, "print only the files that are invalid")
	return cmd
}

// validateExpand turns the arguments into the list of inputs: a directory
// stands for the traces in it, sorted by name so output is stable.
func validateExpand(args []string) ([]string, error) {
	var files []string
	for _, a := range args {
		if a == "-" {
			files = append(files, a)
			continue
		}
		st, err := os.Stat(a)
		if err != nil || !st.IsDir() {
			// A missing file is reported on its own line.
			files = append(files, a)
			continue
		}
		entries, err := os.ReadDir(a)
		if err != nil {
			return nil, err
		}
		var in []string
		for _, e := range entries {
			if !e.IsDir() && isTraceFileName(e.Name()) {
				in = append(in, filepath.Join(a, e.Name()))
			}
		}
		if len(in) == 0 {
			return nil, fmt.Errorf("%s: no *.json, *.jsonl, *.json.gz or *.jsonl.gz files in the directory", a)
		}
		sort.Strings(in)
		files = append(files, in...)
	}
	return files, nil
}

// isTraceFileName reports whether a directory entry is taken as a trace.
func isTraceFileName(name string) bool {
	for _, ext := range []string{".json", ".jsonl", ".json.gz", ".jsonl.gz"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

func runValidate(ios *IO, o *validateOptions, args []string) error {
	files, err := validateExpand(args)
	if err != nil {
		return invalid(err)
	}
	bad := 0
	for _, f := range files {
		summary, err := validateOne(ios.In, f)
		if err != nil {
			bad++
			msg := oneLine(validateMessage(err))
			fmt.Fprintf(ios.Out, "%s\terror\t%s\n", f, msg)
			// SPEC §2 and §8: an invalid input is an error, reported once
			// on stderr as "FILE: event N: what"; the stdout line is the
			// per-file summary scripts parse.
			fmt.Fprintf(ios.ErrOut, "ckpt: %s: %s\n", f, msg)
			continue
		}
		if !o.quiet {
			fmt.Fprintf(ios.Out, "%s\tok\t%s\n", f, summary)
		}
	}
	if bad > 0 {
		return &ExitError{Code: ExitInvalid}
	}
	return nil
}

// validateOne reads one trace or run and summarizes it.
func validateOne(stdin io.Reader, path string) (string, error) {
	var (
		tr  *trace.Trace
		run *trace.Run
		err error
	)
	if path == "-" {
		tr, run, err = trace.ReadAny("-", stdin)
	} else {
		tr, run, err = trace.ReadAnyFile(path)
	}
	if err != nil {
		return "", err
	}
	if run != nil {
		return fmt.Sprintf("%d processes, %d events, %d messages (run, algorithm %q)",
			len(run.Processes), len(run.Events), len(run.Msgs), run.Algorithm), nil
	}
	// The counts always take the plural, as in the documented line
	// format, so that scripts can parse them with one pattern.
	return fmt.Sprintf("%d processes, %d events, %d messages", len(tr.Processes), len(tr.Events), len(tr.Msgs)), nil
}

// validateMessage drops the file name an InputError starts with: the
// line already begins with it.
func validateMessage(err error) string {
	var ie *trace.InputError
	if errors.As(err, &ie) {
		c := *ie
		c.File = ""
		return c.Error()
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// oneLine keeps the output one line per file whatever the message holds.
func oneLine(s string) string {
	return strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", " ").Replace(s)
}
