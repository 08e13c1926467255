// Package cmd holds ckpt's cobra commands, one per file. Every command
// follows the same shape (after cli/cli): an options struct filled from
// flags, and a run function that receives it, so tests can call the run
// function directly or the whole command through Main.
package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/output"
	"github.com/ckpt-dev/ckpt/pipeline"
)

// Version is printed by `ckpt --version`.
var Version = "0.1.0-dev"

// Exit statuses of SPEC §8.
const (
	ExitOK      = 0 // every property holds
	ExitFailed  = 1 // a property fails
	ExitInvalid = 2 // invalid input or usage
)

// ExitError carries an exit status out of a command; any other error is
// invalid input (ExitInvalid). A nil Err means the command already said
// everything it had to say (e.g. a report that contains failed
// properties) and only the status remains.
type ExitError struct {
	Code int
	Err  error
}

// Error is the wrapped error's message, or the bare exit status.
func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

// Unwrap returns the wrapped error, so errors.Is and As see through it.
func (e *ExitError) Unwrap() error { return e.Err }

// IO is where commands read and write; tests substitute buffers.
type IO struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// mem is --max-memory, set up by NewRootCmd (nil: no cap).
	mem *pipeline.Cap
	pl  *pipeline.Pipeline
}

// pipe returns the pipeline this invocation reads, replays and checks
// through: its memory cap is --max-memory, its stdin In (saying on
// ErrOut that it waits when In is a terminal), and it records the files
// it reads, which no output may replace (IsInput).
func (ios *IO) pipe() *pipeline.Pipeline {
	if ios.pl == nil {
		stdin := ios.In
		if isTerminal(stdin) {
			stdin = &hintReader{r: stdin, w: ios.ErrOut}
		}
		ios.pl = &pipeline.Pipeline{Mem: ios.mem, Stdin: stdin, OnRead: output.Reading}
	}
	return ios.pl
}

// flagError is a wrong flag: unknown, without its value, or with a value
// the flag does not take. Every command says what is wrong and points to
// its --help (SPEC §8: no usage dump unless the flags were wrong; issue
// 31: the pointer, not the dump), exit status 2 — whether cobra found the
// error while parsing or the command while checking the values against
// each other.
type flagError struct{ error }

// usagef returns a flagError: a flag value the command cannot use.
func usagef(format string, args ...any) error {
	return flagError{fmt.Errorf(format, args...)}
}

// NewRootCmd builds the ckpt command tree.
func NewRootCmd(ios *IO) *cobra.Command {
	root := &cobra.Command{
		Use:   "ckpt",
		Short: "Replay and verify checkpointing and rollback recovery",
		Long: `ckpt replays execution traces of message-passing systems through the
Manivannan–Singhal quasi-synchronous checkpointing algorithm (ms) and the
Peterson–Kearns vector-time rollback algorithm (pk) — or the
checkpoint-placement protocols bcs, fdas, hmnr and coordinated — and an
independent consistency checker proves or refutes, with witnesses, that
every recovery line is orphan-free, that logging and replay lose and
duplicate nothing, and that there is no domino effect.`,
		Version:       Version,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	ios.mem = &pipeline.Cap{}
	root.PersistentFlags().Var(ios.mem, "max-memory", "stop (exit 2) rather than decode, replay or check what would need more memory than this, e.g. 2GiB; 0: no cap (default: 3/4 of the machine's or cgroup's memory)")
	root.PersistentPreRun = func(c *cobra.Command, _ []string) {
		ios.mem.Resolve()
		paceCollector(c.Name())
	}
	root.SetIn(ios.In)
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)
	wrapHelp(root)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return flagError{flagValueError(err)}
	})
	root.AddCommand(
		newValidateCmd(ios),
		newReplayCmd(ios),
		newVerifyCmd(ios),
		newCheckCmd(ios),
		newReportCmd(ios),
		newGenCmd(ios),
		newImportCmd(ios),
		newExportCmd(ios),
		newDiagramCmd(ios),
		newExploreCmd(ios),
		newCompareCmd(ios),
	)
	return root
}

// paceCollector sets the collector's GOGC for command, unless the GOGC
// environment variable sets it. The two knobs ckpt keeps, each paid for
// by a benchmark of the repository (docs/performance.md):
//   - 50 for the commands that hold one big run or trace at a time: their
//     tables are pointer-free, cheap to mark, and the peak falls.
//     BenchmarkVerify's peak-MiB under GOGC=50 against 100: 10^5
//     failures on 4 processes (issue 17, bar < 1 GiB) 963-1,018 ->
//     814-885 MiB (ms), 1,239-1,260 -> 996-1,106 MiB (both one after the
//     other); 10^6 ops on 16 processes, both, 775 -> 723-774 MiB.
//   - 400 for explore and compare, which replay thousands of small
//     schedules of a few megabytes each, a heap the default collects every
//     megabyte or so. BenchmarkExplore/K2 (explore/bench_test.go) under
//     GOGC=100 and 400: 0.74 -> 0.62 s CPU for 18 -> 29 MB peak; ckpt
//     explore --failures 2 --budget 6000 on the 248-op ewd998 log, 5.3 ->
//     4.0 s CPU, 21 -> 51 MB; ckpt compare on its 666-op log, 1.27 -> 1.0 s.
func paceCollector(command string) {
	if os.Getenv("GOGC") != "" {
		return
	}
	switch command {
	case "explore", "compare":
		debug.SetGCPercent(400)
	default:
		debug.SetGCPercent(50)
	}
}

// wrapHelp makes the usage of every command list its flags wrapped to
// algorithms.HelpWidth (cobra's default template prints each flag on one line, some
// over 200 columns).
func wrapHelp(root *cobra.Command) {
	cobra.AddTemplateFunc("wrappedFlags", func(fs *pflag.FlagSet) string {
		return strings.TrimRight(fs.FlagUsagesWrapped(algorithms.HelpWidth), " \n")
	})
	t := root.UsageTemplate()
	t = strings.ReplaceAll(t, ".LocalFlags.FlagUsages | trimTrailingWhitespaces", "wrappedFlags .LocalFlags")
	t = strings.ReplaceAll(t, ".InheritedFlags.FlagUsages | trimTrailingWhitespaces", "wrappedFlags .InheritedFlags")
	root.SetUsageTemplate(t)
}

// Main runs ckpt with args and returns its exit status. Errors are printed
// once, to errOut, prefixed "ckpt: "; a flag or argument error is
// followed by one line pointing to the command's --help, not the usage
// itself (forty lines that bury the message).
func Main(args []string, in io.Reader, out, errOut io.Writer) int {
	ios := &IO{In: in, Out: out, ErrOut: errOut}
	output.Reset()
	root := NewRootCmd(ios)
	root.SetArgs(args)
	c, err := root.ExecuteC()
	if err == nil {
		return ExitOK
	}
	// cobra's own argument error ("unknown command ...": every command
	// checks its arguments with takesArgs) earns the pointer too.
	var fe flagError
	if errors.As(err, &fe) || strings.HasPrefix(err.Error(), "unknown ") {
		fmt.Fprintf(errOut, "ckpt: %v\n", err)
		if c != nil {
			fmt.Fprintf(errOut, "Run '%s --help' for usage.\n", c.CommandPath())
		}
		return ExitInvalid
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		if ee.Err != nil {
			fmt.Fprintf(errOut, "ckpt: %v\n", ee.Err)
		}
		return ee.Code
	}
	fmt.Fprintf(errOut, "ckpt: %v\n", err)
	return ExitInvalid
}

// takesArgs checks a command's arguments against names, spelled as in
// its usage: "" takes none, "FILE" one, "FILE..." one or more. A wrong
// count is a usage error that names them: "ckpt report takes 1 argument
// (FILE), got 2", "ckpt verify needs at least 1 argument (FILE...)".
func takesArgs(names string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case names == "" && len(args) > 0:
			return usagef("%s takes 0 arguments, got %d", cmd.CommandPath(), len(args))
		case strings.HasSuffix(names, "..."):
			if len(args) == 0 {
				return usagef("%s needs at least 1 argument (%s)", cmd.CommandPath(), names)
			}
		case names != "" && len(args) != 1:
			return usagef("%s takes 1 argument (%s), got %d", cmd.CommandPath(), names, len(args))
		}
		return nil
	}
}
