package cmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/compare"
	"github.com/ckpt-dev/ckpt/explore"
	"github.com/ckpt-dev/ckpt/output"
	"github.com/ckpt-dev/ckpt/render"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/codec"
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
--strip-failures replays each failure; the others: Wang's maximum
consistent recovery line over the checkpoints they placed before it). "-"
reads stdin; a directory means every trace in it. --no-failures skips the
per-failure columns, which cost one replay per failure point.

--sweep runs the classic workload of the checkpointing literature instead
(complete graph, exponential sends with mean --mtt, basic checkpoint
intervals uniform on [ICT/2, 3·ICT/2]) for every ICT/MTT of --ratios and
--seeds seeds, prints forced checkpoints per basic checkpoint, and writes
DIR/` + compare.SweepCSV + ` (every count) and DIR/` + compare.SweepChart + ` (the chart).
See docs/protocols.md.

Exit status: 0 done; 2 invalid input or usage.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCompare(ios, f, args)
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.protocols, "protocols", strings.Join(compare.Protocols, ","), "protocols to compare, comma-separated, in row order (all: every one)")
	fl.StringVar(&f.format, "format", string(render.Text), "output format: text, json or markdown")
	fl.StringVarP(&f.output, "output", "o", "", "write the output to this file (atomically); with --sweep, the directory for "+compare.SweepCSV+" and "+compare.SweepChart)
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
		return flagError{err}
	}
	protocols, err := compare.ParseProtocols(f.protocols)
	if err != nil {
		return usagef("--protocols %q: %v", f.protocols, err)
	}
	if f.sweep {
		if len(args) > 0 {
			return usagef("compare --sweep generates its traces: it takes no FILE (got %d)", len(args))
		}
		f.sw.Protocols, f.sw.Params, f.sw.Mem = protocols, f.params, ios.pipe().Mem
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
	for _, in := range inputs {
		output.Reading(in.Path) // refused as -o before the work, not after
	}
	// The work runs inside Write, which creates its file first: an -o
	// that cannot be written is refused before the replays, not after.
	var tables []compare.Table
	err = output.Write(f.output, ios.Out, func(w io.Writer) error {
		tables = compare.Files(inputs, o)
		meter.Finish()
		return render.Compare(w, format, tables, render.Options{Quiet: f.quiet})
	})
	bad := false
	for _, t := range tables {
		if t.Error != "" {
			bad = true
			fmt.Fprintf(ios.ErrOut, "ckpt: %s: %s\n", t.File, t.Error)
		}
	}
	if err == nil && bad {
		err = &ExitError{Code: ExitInvalid}
	}
	return err
}

// runSweep runs the grid and writes its CSV and chart into the -o
// directory (created if missing, its parent not: output.MakeDir), each
// atomically, and its table to stdout.
func runSweep(ios *IO, f *compareFlags, format render.Format) error {
	if f.output == "" || f.output == "-" {
		return usagef("compare --sweep: -o DIR is required (the directory for %s and %s)", compare.SweepCSV, compare.SweepChart)
	}
	ratios, err := compare.ParseRatios(f.ratios)
	if err != nil {
		return usagef("--ratios %q: %v", f.ratios, err)
	}
	f.sw.Ratios = ratios
	if err := output.MakeDir(f.output); err != nil {
		return err
	}
	rows, err := compare.Sweep(f.sw)
	if err != nil {
		return err
	}
	csvPath, svgPath, err := compare.WriteSweep(f.output, f.sw, rows)
	if err != nil {
		return err
	}
	if !f.quiet {
		if err := render.Sweep(ios.Out, format, f.sw, rows); err != nil {
			return err
		}
	}
	fmt.Fprintf(ios.ErrOut, "ckpt: wrote %s and %s\n", csvPath, svgPath)
	return nil
}
