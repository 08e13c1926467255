package cmd

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/compare"
	"github.com/ckpt-dev/ckpt/explore"
	"github.com/ckpt-dev/ckpt/output"
	"github.com/ckpt-dev/ckpt/pipeline"
	"github.com/ckpt-dev/ckpt/render"
	"github.com/ckpt-dev/ckpt/trace"
)

// compareFlags are `ckpt compare`'s flags.
type compareFlags struct {
	protocols  string
	format     string
	output     string
	quiet      bool
	noFailures bool
	params     trace.Params
	sweep      bool
	sw         compare.SweepOptions
	ratios     string
}

// Files `ckpt compare --sweep` writes into its directory.
const (
	sweepCSV   = "sweep.csv"
	sweepChart = "forced-per-basic.svg"
)

// newCompareCmd builds `ckpt compare [flags] FILE...` and `ckpt compare
// --sweep [flags] -o DIR`.
func newCompareCmd(ios *IO) *cobra.Command {
	f := &compareFlags{sw: compare.DefaultSweep()}
	c := &cobra.Command{
		Use:   "compare [--protocols LIST] [--format F] [-o OUT] FILE... | compare --sweep [flags] -o DIR",
		Short: "Compare checkpointing protocols on the same executions",
		Long: `compare replays each trace's failure-free execution (its own fail events
left out) through every protocol — uncoordinated checkpointing (the timer
ticks alone), bcs, fdas, hmnr, coordinated, ms and pk — and prints, per
trace, one row per protocol: basic and forced checkpoints, forced per
basic, useless checkpoints (on a Z-cycle), piggyback bytes per message,
control messages, blocked time, and the mean and largest number of ops one
failure undoes over every failure point (ms and pk: explore --failures 1
replays each failure; the others: Wang's maximum consistent recovery line
over the checkpoints they placed before it). "-" reads stdin; a directory
means every trace in it. --no-failures skips the per-failure columns,
which cost one replay per failure point.

--sweep runs the classic workload of the checkpointing literature instead
(complete graph, exponential sends with mean --mtt, basic checkpoint
intervals uniform on [ICT/2, 3·ICT/2]) for every ICT/MTT of --ratios and
--seeds seeds, prints forced checkpoints per basic checkpoint, and writes
DIR/` + sweepCSV + ` (every count) and DIR/` + sweepChart + ` (the chart).
See docs/protocols.md.

Exit status: 0 done; 2 invalid input or usage.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCompare(ios, f, args)
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.protocols, "protocols", strings.Join(compare.Protocols, ","), "protocols to compare, comma-separated, in row order (all: every one)")
	fl.StringVar(&f.format, "format", string(render.Text), "output format: text, json or markdown")
	fl.StringVarP(&f.output, "output", "o", "", "write the output to this file (atomically); with --sweep, the directory for "+sweepCSV+" and "+sweepChart)
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "print one line per trace and protocol: FILE, protocol, basic, forced, useless, piggyback bytes, control messages (tab-separated); with --sweep, only the files")
	fl.BoolVar(&f.noFailures, "no-failures", false, "skip the ops-undone-per-failure columns")
	addDelayFlags(fl, &f.params)
	fl.BoolVar(&f.sweep, "sweep", false, "run the classic workload over a grid of ICT/MTT instead of reading traces")
	fl.Var(intFlag(&f.sw.Procs, 2), "procs", "--sweep: processes")
	fl.Var(intFlag(&f.sw.Intervals, 1), "intervals", "--sweep: mean basic checkpoint intervals per process in a trace")
	fl.Var(intFlag(&f.sw.Seeds, 1), "seeds", "--sweep: traces (seeds 1…N) per grid point")
	fl.Var(secondsFlag(&f.sw.MTT, true), "mtt", "--sweep: mean time between a process's sends, in seconds")
	fl.StringVar(&f.ratios, "ratios", "1,2,5,10,20,50,100", "--sweep: the ICT/MTT values, comma-separated")
	return c
}

func runCompare(ios *IO, f *compareFlags, args []string) error {
	format, err := render.ParseFormat(f.format, render.CompareFormats...)
	if err != nil {
		return usageError(err)
	}
	protocols, err := compare.ParseProtocols(f.protocols)
	if err != nil {
		return usagef("--protocols %q: %v", f.protocols, err)
	}
	if f.sweep {
		if len(args) > 0 {
			return usagef("compare --sweep generates its traces: it takes no FILE (got %d)", len(args))
		}
		f.sw.Protocols, f.sw.Params = protocols, f.params
		return runSweep(ios, f, format)
	}
	if len(args) == 0 {
		return usagef("compare needs at least 1 FILE (or --sweep)")
	}
	inputs, err := expandInputs(ios.ErrOut, args, codec.TraceFormat)
	if err != nil {
		return err
	}
	// -q prints no per-failure figure: none is computed.
	o := compare.Options{Protocols: protocols, NoFailures: f.noFailures || f.quiet, Params: f.params, Pipeline: ios.pipe()}
	meter := explore.NewMeter(ios.ErrOut, isTerminal(ios.ErrOut), nil, "compare", "failure points")
	o.Progress = meter.Update
	tables := make([]compare.Table, len(inputs))
	var bad []string
	for i, in := range inputs {
		tables[i] = compareFile(ios, in, o)
		if msg := tables[i].Error; msg != "" {
			bad = append(bad, fmt.Sprintf("ckpt: %s: %s", in.Path, msg))
		}
	}
	meter.Finish()
	err = output.Write(f.output, ios.Out, func(w io.Writer) error {
		return render.Compare(w, format, tables, render.Options{Quiet: f.quiet})
	})
	for _, l := range bad {
		fmt.Fprintln(ios.ErrOut, l)
	}
	if err == nil && len(bad) > 0 {
		err = &ExitError{Code: ExitInvalid}
	}
	return err
}

// compareFile compares the protocols on one input; one that cannot be
// read or compared is a table with its error, reported in its place.
func compareFile(ios *IO, in pipeline.Input, o compare.Options) compare.Table {
	err := in.Err
	if err == nil {
		var tr *trace.Trace
		if tr, err = ios.pipe().ReadTrace(in.Path); err == nil {
			var t compare.Table
			if t, err = compare.Run(tr, o); err == nil {
				return t
			}
		}
	}
	return compare.Table{File: in.Path, Error: pipeline.Describe(err)}
}

// runSweep runs the grid and writes its CSV and chart into the -o
// directory (created if missing, its parent not: makeOutputDir), each
// atomically, and its table to stdout.
func runSweep(ios *IO, f *compareFlags, format render.Format) error {
	if f.output == "" || f.output == "-" {
		return usagef("compare --sweep: -o DIR is required (the directory for %s and %s)", sweepCSV, sweepChart)
	}
	ratios, err := parseRatios(f.ratios)
	if err != nil {
		return err
	}
	f.sw.Ratios = ratios
	if err := output.MakeDir(f.output); err != nil {
		return err
	}
	rows, err := compare.Sweep(f.sw)
	if err != nil {
		return invalid(err)
	}
	csvPath, svgPath := filepath.Join(f.output, sweepCSV), filepath.Join(f.output, sweepChart)
	if err := output.Write(csvPath, nil, func(w io.Writer) error { return compare.WriteCSV(w, f.sw, rows) }); err != nil {
		return err
	}
	if err := output.Write(svgPath, nil, func(w io.Writer) error { return compare.Chart(w, f.sw, rows) }); err != nil {
		return err
	}
	if !f.quiet {
		if err := output.Write("", ios.Out, func(w io.Writer) error { return render.Sweep(w, format, f.sw, rows) }); err != nil {
			return err
		}
	}
	fmt.Fprintf(ios.ErrOut, "ckpt: wrote %s and %s\n", csvPath, svgPath)
	return nil
}

// parseRatios reads --ratios: positive numbers, increasing.
func parseRatios(s string) ([]float64, error) {
	var out []float64
	for _, p := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || !(v > 0) || v > 1e6 {
			return nil, usagef("--ratios %q: %q is not a number in (0, 1e6]", s, strings.TrimSpace(p))
		}
		if len(out) > 0 && v <= out[len(out)-1] {
			return nil, usagef("--ratios %q: want increasing values", s)
		}
		out = append(out, v)
	}
	return out, nil
}
