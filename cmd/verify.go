package cmd

import (
	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/explore"
	"github.com/ckpt-dev/ckpt/pipeline"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/codec"
)

// newVerifyCmd builds `ckpt verify [flags] FILE...`.
func newVerifyCmd(ios *IO) *cobra.Command {
	f := &reportFlags{}
	c := &cobra.Command{
		Use:   "verify [flags] FILE...",
		Short: "Replay traces through ms, pk or a placement protocol and check every run",
		Long: `verify replays each execution trace (ckpt/trace@1) through --algo ms, pk,
both (the default), or a checkpoint-placement protocol (bcs, fdas, hmnr,
coordinated) and runs the consistency checker on every run: are
the recovery lines orphan-free, is nothing lost or delivered twice, do the
logging and replay rules hold, is there no domino effect, ... "-" reads
stdin; a directory means every trace in it, in name order (what else it
holds is skipped, saying so on stderr). Files are verified in parallel;
reports keep the order of the arguments. A file that cannot be read is
reported as an error in the output, beside the others, and on stderr.

Exit status: 0 every property holds; 1 a property fails, or nothing
could be checked (verdict unknown; with --strict, any unknown property);
2 a file is invalid (every other file is still reported), or usage.`,
		Args: takesArgs("FILE..."),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVerify(ios, f, args)
		},
	}
	addReportFlags(c, f, algoNames(true))
	return c
}

func runVerify(ios *IO, f *reportFlags, args []string) error {
	if err := f.validate(); err != nil {
		return err
	}
	inputs, err := expandInputs(ios.ErrOut, args, codec.TraceFormat)
	if err != nil {
		return err
	}
	// The bar is drawn on a terminal only: elsewhere it would be noise
	// mixed into captured diagnostics.
	var meter *explore.Meter
	if len(inputs) > 1 && isTerminal(ios.ErrOut) {
		meter = explore.NewMeter(ios.ErrOut, true, nil, "verify", "files")
	}
	reports, lines := checkFiles(ios, inputs, meter, func(path string) fileResult {
		tr, err := ios.pipe().ReadTrace(path)
		if err != nil {
			return fileResult{err: err}
		}
		return fileResult{reports: verifyTrace(ios, tr, path, f)}
	})
	return finishReports(ios, f, reports, lines, false)
}

// verifyTrace replays tr through every algorithm the flags select, one
// after the other, and checks each run (pipeline.Verify).
func verifyTrace(ios *IO, tr *trace.Trace, path string, f *reportFlags) []report.Report {
	outs := ios.pipe().Verify(tr, path, pipeline.Options{
		Algorithms: algorithms.Select(f.Algo), Variant: f.Variant, Params: f.Params,
		VerdictsOnly: f.Quiet,
	})
	reports := make([]report.Report, len(outs))
	for i := range outs {
		reports[i] = outs[i].Report
	}
	return reports
}
