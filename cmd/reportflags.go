package cmd

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/render"
	"github.com/ckpt-dev/ckpt/trace"
)

// reportFlags are the flags verify, check and report share (SPEC §8). One
// struct and one registration function keep their spelling, defaults and
// validation identical across the three commands.
type reportFlags struct {
	// Format is the output format: text, json, markdown or junit.
	Format string
	// Quiet prints one verdict line per report.
	Quiet bool
	// Output is the file to write ("" or "-" for stdout).
	Output string
	// Strict makes a report with an unknown property unknown (exit 1).
	Strict bool
	replayFlags
}

// addReportFlags registers the shared flags on cmd, writing into f;
// --algo takes one of choices (e.g. algoNames(true)).
func addReportFlags(cmd *cobra.Command, f *reportFlags, choices []string) {
	fl := cmd.Flags()
	fl.StringVar(&f.Format, "format", string(render.Text), "output format: text, json, markdown or junit")
	fl.BoolVarP(&f.Quiet, "quiet", "q", false, "print only one verdict line per report")
	fl.StringVarP(&f.Output, "output", "o", "", "write the output to this file (atomically) instead of stdout")
	fl.BoolVar(&f.Strict, "strict", false, "a property that cannot be judged (unknown) fails the verdict (exit 1)")
	f.add(fl, choices, algorithms.Both, "algorithm to replay: "+algorithms.Choice(choices))
}

// replayFlags are the flags that say how to replay a trace
// (replayFlagNames), which a run ignores: verify, check, report,
// explore, replay and diagram register them by add.
type replayFlags struct {
	// Algo is an algorithm of the table, or both (ms and pk).
	Algo string
	// Variant is a variant of the algorithm table ("" or "textbook"); it
	// applies to the selected algorithms that have it.
	Variant string
	// Params are --restart-delay and --control-delay (addDelayFlags).
	Params trace.Params
	// choices are the --algo values the command takes.
	choices []string
	// flags are the command's, which say what was given (ignoredNote).
	flags *pflag.FlagSet
}

// add registers the replay flags on fl, writing into r: --algo takes one
// of choices, def by default, and algoHelp is its help.
func (r *replayFlags) add(fl *pflag.FlagSet, choices []string, def, algoHelp string) {
	r.choices, r.flags = choices, fl
	fl.StringVar(&r.Algo, "algo", def, algoHelp)
	addDelayFlags(fl, &r.Params)
	fl.StringVar(&r.Variant, "variant", "", variantHelp(choices))
}

// The --algo and --variant flags of every command read the algorithm
// table (algorithms.All): its names, its variants and their help.

// algoNames are the values --algo takes: the table's algorithms, and
// "both" (ms and pk, algorithms.Names) where a command can replay
// several.
func algoNames(withBoth bool) []string {
	names := slices.Clone(algorithms.AllNames)
	if withBoth {
		names = append(names, algorithms.Both)
	}
	return names
}

// recoveryNames are the values explore's --algo takes: the algorithms
// that recover (failures are injected), and both.
func recoveryNames() []string {
	return append(slices.Clone(algorithms.Names), algorithms.Both)
}

// variantHelp is --variant's help: every variant of the algorithms
// among choices, with its algorithm and description, and the rule (for
// a command that replays one algorithm, without --algo both, which it
// does not take).
func variantHelp(choices []string) string {
	var parts []string
	for _, a := range algorithms.All {
		if !slices.Contains(choices, a.Name) {
			continue
		}
		for _, v := range a.Variants {
			parts = append(parts, fmt.Sprintf("%s (%s: %s)", v.Name, a.Name, v.Doc))
		}
	}
	rule := algorithms.VariantRule
	if !slices.Contains(choices, algorithms.Both) { // one algorithm: no "others"
		rule = "a variant the algorithm does not have is a usage error"
	}
	return "algorithm variant: " + strings.Join(parts, "; ") + "; " + rule
}

// check checks --algo against the values the command takes
// (choices) and --variant against the algorithms it selects, by one
// rule for every command (algorithms.VariantRule); both are usage errors.
func (r *replayFlags) check() error {
	if !slices.Contains(r.choices, r.Algo) {
		return usagef("--algo %q: want %s", r.Algo, algorithms.Choice(r.choices))
	}
	if err := algorithms.CheckVariant(r.Variant, algorithms.Select(r.Algo)); err != nil {
		return flagError{err}
	}
	return nil
}

// addDelayFlags registers --restart-delay and --control-delay, writing
// into p the params that override a trace's: 0 is "not given" (a given
// value is > 0, SPEC §2). Every command that replays uses it.
func addDelayFlags(fl *pflag.FlagSet, p *trace.Params) {
	fl.Var(secondsFlag(&p.RestartDelay, true), "restart-delay", "seconds from a failure to the restart (overrides the trace's params)")
	fl.Var(secondsFlag(&p.ControlDelay, true), "control-delay", "delivery delay of control messages in seconds (overrides the trace's params)")
}

// replayFlagNames are the flags that say how to replay a trace, which a
// run (checked or drawn as it is) ignores.
var replayFlagNames = []string{"algo", "variant", "restart-delay", "control-delay"}

// ignoredNote says, for a run at path, that the replay flags given on
// the command line do not apply to it ("" when none was given): report
// --algo pk RUN used to ignore --algo without a word.
func (r *replayFlags) ignoredNote(path string) string {
	var given []string
	for _, name := range replayFlagNames {
		if r.flags.Changed(name) {
			given = append(given, "--"+name)
		}
	}
	if len(given) == 0 {
		return ""
	}
	verb := "is"
	if len(given) > 1 {
		verb = "are"
	}
	return fmt.Sprintf("%s: a run is taken as it is, replaying nothing: %s %s ignored", path, strings.Join(given, ", "), verb)
}

// validate checks the flag values; errors are usage errors (exit 2).
func (f *reportFlags) validate() error {
	if _, err := render.ParseFormat(f.Format); err != nil {
		return flagError{err}
	}
	return f.check()
}

// renderOptions returns the render.Options the flags ask for, output
// going to w: colour only for text written to a terminal, and never when
// NO_COLOR is set (no-color.org) or TERM is dumb.
func (f *reportFlags) renderOptions(w io.Writer) render.Options {
	color := render.Format(f.Format) == render.Text && (f.Output == "" || f.Output == "-") &&
		os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb" && isTerminal(w)
	return render.Options{Quiet: f.Quiet, Strict: f.Strict, Color: color}
}
