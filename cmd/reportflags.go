package cmd

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/consistency/report"
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
	// Algo is ms, pk or both (verify and report on traces).
	Algo string
	// RestartDelay and ControlDelay are in seconds; 0 means "not given",
	// so the trace's params (then the defaults) apply.
	RestartDelay float64
	ControlDelay float64
	// restartSet and controlSet record that the flag was given, so that
	// an explicit 0 is rejected (SPEC §2: delays are finite and > 0)
	// instead of silently meaning "not given".
	restartSet, controlSet bool
	// Variant is a variant of the algorithm table ("" or "textbook"); it
	// applies to the selected algorithms that have it.
	Variant string
}

// addReportFlags registers the shared flags on cmd, writing into f.
func addReportFlags(cmd *cobra.Command, f *reportFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.Format, "format", string(report.Text), "output format: text, json, markdown or junit")
	fl.BoolVarP(&f.Quiet, "quiet", "q", false, "print only one verdict line per report")
	fl.StringVarP(&f.Output, "output", "o", "", "write the output to this file (atomically) instead of stdout")
	fl.StringVar(&f.Algo, "algo", "both", "algorithm to replay: "+algorithms.Choice(algoNames(true)))
	addDelayFlags(fl, f)
	fl.StringVar(&f.Variant, "variant", "", variantHelp())
}

// The --algo and --variant flags of every command read the algorithm
// table (algorithms.All): its names, its variants and their help.

// algoNames are the values --algo takes: the table's algorithms, and
// "both" (all of them) where a command can replay every one.
func algoNames(withBoth bool) []string {
	names := slices.Clone(algorithms.Names)
	if withBoth {
		names = append(names, "both")
	}
	return names
}

// variantHelp is --variant's help: every variant of the table, with its
// algorithm and description.
func variantHelp() string {
	var parts []string
	for _, a := range algorithms.All {
		for _, v := range a.Variants {
			parts = append(parts, fmt.Sprintf("%s (%s: %s)", v.Name, a.Name, v.Doc))
		}
	}
	return "algorithm variant: " + strings.Join(parts, "; ")
}

// checkVariant checks that v ("" for the default) is a variant of
// algorithm algo, which the caller has validated.
func checkVariant(v, algo string) error {
	if a, ok := algorithms.Lookup(algo); ok && a.HasVariant(v) {
		return nil
	}
	if !slices.Contains(algorithms.VariantNames(), v) {
		return fmt.Errorf("--variant %q: want %s", v, algorithms.Choice(algorithms.VariantNames()))
	}
	return fmt.Errorf("--variant %s: the variant applies to --algo %s only", v, algorithms.Choice(algorithms.VariantsOf(v)))
}

// addDelayFlags registers --restart-delay and --control-delay, writing
// into f. Every command that replays uses it, so that an explicit 0 or a
// negative delay is rejected the same way everywhere (f.params).
func addDelayFlags(fl *pflag.FlagSet, f *reportFlags) {
	fl.Var(&delayFlag{v: &f.RestartDelay, set: &f.restartSet}, "restart-delay", "seconds from a failure to the restart (overrides the trace's params)")
	fl.Var(&delayFlag{v: &f.ControlDelay, set: &f.controlSet}, "control-delay", "delivery delay of control messages in seconds (overrides the trace's params)")
}

// validate checks the flag values; errors are usage errors (exit 2).
func (f *reportFlags) validate() error {
	switch report.Format(f.Format) {
	case report.Text, report.JSON, report.Markdown, report.JUnit:
	default:
		return invalidf("--format %q: want text, json, markdown or junit", f.Format)
	}
	if !slices.Contains(algoNames(true), f.Algo) {
		return invalidf("--algo %q: want %s", f.Algo, algorithms.Choice(algoNames(true)))
	}
	if f.Variant != "" && !slices.Contains(algorithms.VariantNames(), f.Variant) {
		return invalidf("--variant %q: want %s", f.Variant, algorithms.Choice(algorithms.VariantNames()))
	}
	if _, err := f.params(); err != nil {
		return err
	}
	return nil
}

// algorithms returns the algorithm names --algo selects, in report order.
func (f *reportFlags) algorithms() []string {
	if f.Algo == "both" || f.Algo == "" {
		return algorithms.Names
	}
	return []string{f.Algo}
}

// variantFor returns the variant to replay algorithm name with: --variant
// if name has it, else the default (so with --algo both, --variant
// textbook applies to ms and pk runs as it is).
func (f *reportFlags) variantFor(name string) string {
	if a, ok := algorithms.Lookup(name); ok && a.HasVariant(f.Variant) {
		return f.Variant
	}
	return ""
}

// params converts the delay flags into replay params that override a
// trace's: a flag not given sets nothing.
func (f *reportFlags) params() (trace.Params, error) {
	var p trace.Params
	for _, d := range []struct {
		name string
		v    float64
		dst  *trace.Time
		set  bool
	}{
		{"--restart-delay", f.RestartDelay, &p.RestartDelay, f.restartSet},
		{"--control-delay", f.ControlDelay, &p.ControlDelay, f.controlSet},
	} {
		if d.v == 0 && !d.set {
			continue
		}
		t, ok := trace.FromSeconds(d.v)
		if !ok && d.v > 0 && !math.IsInf(d.v, 1) {
			return p, invalidf("%s %v: want at most %s", d.name, d.v, trace.MaxTimeText)
		}
		if !ok || t <= 0 {
			return p, invalidf("%s %v: want a finite number of seconds > 0", d.name, d.v)
		}
		*d.dst = t
	}
	return p, nil
}

// renderOptions returns the report.Options the flags ask for.
func (f *reportFlags) renderOptions(full bool) report.Options {
	return report.Options{Quiet: f.Quiet, Full: full}
}

// String describes the flags for error messages and debugging.
func (f *reportFlags) String() string {
	return fmt.Sprintf("format=%s quiet=%v output=%q algo=%s variant=%q", f.Format, f.Quiet, f.Output, f.Algo, f.Variant)
}

// delayFlag is a float64 flag that remembers whether it was given.
type delayFlag struct {
	v   *float64
	set *bool
}

func (d *delayFlag) String() string {
	if d.v == nil {
		return "0"
	}
	return strconv.FormatFloat(*d.v, 'g', -1, 64)
}

func (d *delayFlag) Set(s string) error {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("%q is not a number of seconds", s)
	}
	*d.v, *d.set = x, true
	return nil
}

func (d *delayFlag) Type() string { return "float" }
