package cmd

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/explore"
	"github.com/ckpt-dev/ckpt/output"
	"github.com/ckpt-dev/ckpt/pipeline"
	"github.com/ckpt-dev/ckpt/render"
	"github.com/ckpt-dev/ckpt/trace"
)

// exploreFlags are explore's own flags, next to the shared report flags.
type exploreFlags struct {
	report reportFlags
	// opts takes the flags that need no parsing; options adds the
	// others.
	opts  explore.Options
	shard string
	out   string
}

// newExploreCmd builds `ckpt explore [flags] FILE`.
func newExploreCmd(ios *IO) *cobra.Command {
	f := &exploreFlags{}
	c := &cobra.Command{
		Use:   "explore [flags] FILE",
		Short: "Replay a trace under every placement of injected failures and check each run",
		Long: `explore answers "does the recovery protocol really recover?" within a stated
scope. It replays the trace with up to --failures injected crashes at every
point of every process (before each of its ops, ticks and flushes, and after
its last event), with --delays also under perturbed message arrivals,
through --algo ` + algorithms.Choice(recoveryNames()) + ` (the algorithms that recover:
the checkpoint-placement protocols have none to explore), and checks
every run. Schedules that differ only by where a crash falls in a
stretch of internal ops are explored once (see docs/explore.md). Spaces
within --budget are explored exhaustively, larger ones by seeded random
sampling; --shard I/N splits the schedules between CI jobs.

The first failing schedule of each (algorithm, property) is shrunk and
written as a standalone trace under --out (default: beside FILE, named
after it without its extension, t.explore for t.json; every run replaces
the witnesses it wrote there, never another file; a witness whose name
holds another file is not written, exit status 2): ckpt verify with the
same --algo/--variant fails the same property on it. --format json
writes every figure and the witnesses: ckpt explore merge combines the
shards' into the whole exploration's report.

Progress goes to stderr: a bar on a terminal, a line every 10 s
elsewhere. SIGINT or SIGTERM stops the exploration cleanly: the report
covers the schedules run so far, and the exit status is 130 or 143.

Exit status: 0 no schedule fails, 1 some schedule fails a property, 2
invalid input or usage.`,
		Args: takesArgs("FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExplore(ios, f, args[0])
		},
	}
	addReportFlags(c, &f.report, recoveryNames())
	c.AddCommand(newExploreMergeCmd(ios))
	fl := c.Flags()
	fl.IntVar(&f.opts.Failures, "failures", 1, "most failures injected into one schedule (K)")
	fl.BoolVar(&f.opts.Delays, "delays", false, "also perturb message arrival orders")
	fl.Int64Var(&f.opts.Budget, "budget", explore.DefaultBudget, "most schedules to run; larger spaces are sampled")
	fl.Uint64Var(&f.opts.Seed, "seed", 0, "seed of the sampling")
	fl.StringVar(&f.shard, "shard", "1/1", "run only shard I of N (1-based), e.g. 2/4")
	fl.StringVar(&f.out, "out", "", "directory for witness traces (default: t.explore beside t.json; a run replaces the witnesses it wrote there)")
	fl.BoolVar(&f.opts.StripFailures, "strip-failures", false, "drop the trace's own fail events first")
	fl.BoolVar(&f.opts.NoReduce, "no-reduce", false, "run every schedule, not one per equivalence class")
	return c
}

func runExplore(ios *IO, f *exploreFlags, path string) error {
	opts, err := f.options()
	if err != nil {
		return err
	}
	var tr *trace.Trace
	err = dirError("ckpt explore", pipeline.TraceDoc, path)
	if err == nil {
		tr, err = ios.pipe().ReadTrace(path)
	}
	if err != nil {
		return exploreError(ios, f, path, err)
	}
	dir := cmp.Or(f.out, explore.WitnessDir(path))
	if err := explore.CheckOutputs(f.report.Output, dir); err != nil {
		return err
	}
	ctx, stop := output.Trap()
	meter := explore.NewMeter(ios.ErrOut, isTerminal(ios.ErrOut), nil, "explore", "schedules")
	opts.Progress, opts.Pipeline = meter.Update, ios.pipe()
	res, err := explore.Run(ctx, tr, opts)
	meter.Finish()
	if errors.Is(err, explore.ErrOptions) {
		return flagError{err}
	}
	if err != nil {
		return exploreError(ios, f, path, err)
	}
	return finishExplore(ios, &f.report, res, dir, signalStatus(ios, stop()))
}

// finishExplore writes res's witnesses into dir and res as the flags
// ask, and turns it into the exit status: 2 if a witness could not be
// written (the report is, without it), else 128 + the signal that
// stopped the exploration, else 1 if a schedule fails, else 0.
func finishExplore(ios *IO, rf *reportFlags, res *explore.Result, dir string, signal int) error {
	wrote, tidy, werr := explore.WriteWitnesses(res, dir)
	if tidy == nil {
		return werr
	}
	if wrote {
		fmt.Fprintf(ios.ErrOut, "ckpt: witnesses written to %s\n", dir)
	}
	err := output.Write(rf.Output, ios.Out, func(w io.Writer) error {
		return render.Explore(w, render.Format(rf.Format), res, rf.renderOptions(ios.Out))
	})
	tidy()
	switch {
	case err != nil:
		return err
	case werr != nil:
		return werr // a witness refused: the report is written all the same
	case signal != 0:
		return &ExitError{Code: 128 + signal}
	case !res.Valid:
		return &ExitError{Code: ExitFailed}
	}
	return nil
}

// signalStatus says on stderr that sig stopped the work and returns
// its number, 128 less the exit status (0: no signal came).
func signalStatus(ios *IO, sig os.Signal) int {
	if sig == nil {
		return 0
	}
	fmt.Fprintf(ios.ErrOut, "ckpt: %s: stopped; the report covers the work done\n", sig)
	if n, ok := sig.(syscall.Signal); ok {
		return int(n)
	}
	return int(syscall.SIGINT)
}

// exploreError reports a trace that could not be read or explored as
// verify reports a bad file: an error entry in the output, in every
// format (-o written atomically all the same), and one line on stderr;
// exit status 2.
func exploreError(ios *IO, f *exploreFlags, path string, err error) error {
	msg := pipeline.Describe(err)
	rf := &f.report
	werr := output.Write(rf.Output, ios.Out, func(w io.Writer) error {
		return render.ExploreError(w, render.Format(rf.Format), path, msg, rf.renderOptions(ios.Out))
	})
	if werr != nil {
		return werr
	}
	return fmt.Errorf("%s: %s", path, msg)
}

// options checks the flags (usage errors exit 2) and turns them into
// explore.Options.
func (f *exploreFlags) options() (explore.Options, error) {
	rf, opts := &f.report, f.opts
	if a, ok := algorithms.Lookup(rf.Algo); ok && !a.Recovery {
		return opts, usagef("--algo %s: %s has no recovery to explore (failures are injected): want %s; ckpt compare measures how far a failure would roll it back",
			a.Name, a.Name, algorithms.Choice(recoveryNames()))
	}
	if err := rf.validate(); err != nil {
		return opts, err
	}
	if opts.Failures < 0 {
		return opts, usagef("--failures %d: want 0 or more", opts.Failures)
	}
	if opts.Budget < 1 {
		return opts, usagef("--budget %d: want 1 or more", opts.Budget)
	}
	shard, err := explore.ParseShard(f.shard)
	if err != nil {
		return opts, usagef("--shard %q: want I/N with 1 <= I <= N, e.g. 2/4", f.shard)
	}
	opts.Algorithms, opts.Variant, opts.Params, opts.Shard = algorithms.Select(rf.Algo), rf.Variant, rf.Params, shard
	return opts, nil
}
