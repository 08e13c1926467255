package cmd

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/consistency/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// newCheckCmd builds `ckpt check [flags] RUN...`.
func newCheckCmd(ios *IO) *cobra.Command {
	f := &reportFlags{}
	c := &cobra.Command{
		Use:   "check [flags] RUN...",
		Short: "Check recorded runs (ckpt/run@1) as they are, replaying nothing",
		Long: `check reads runs (ckpt/run@1) — written by ckpt replay or recorded by
another implementation — and judges every property of the consistency
checker on them as they are. "-" reads stdin; a directory means every file
in it, in name order. When a run's header names a source trace that can be
read (as written, or next to the run), equivalence is judged against it;
otherwise it is unknown.

Exit status: 0 every property holds, 1 a property fails, 2 invalid input
or usage.`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCheck(ios, f, args)
		},
	}
	addReportFlags(c, f)
	// check replays nothing: the replay flags do not apply.
	for _, name := range []string{"algo", "restart-delay", "control-delay", "variant"} {
		_ = c.Flags().MarkHidden(name)
	}
	return c
}

func runCheck(ios *IO, f *reportFlags, args []string) error {
	if err := f.validate(); err != nil {
		return err
	}
	paths, err := expandInputs(args, trace.RunFormat)
	if err != nil {
		return invalid(err)
	}
	reports, err := parallelReports(paths, func(path string) ([]report.Report, error) {
		var run *trace.Run
		var err error
		if path == "-" {
			run, err = trace.ReadRun("-", ios.In)
		} else {
			run, err = trace.ReadRunFile(path)
		}
		if err != nil {
			return nil, err
		}
		r := consistency.Check(run, reportSource(run, path))
		r.File = path
		return []report.Report{r}, nil
	})
	if err != nil {
		return invalid(err)
	}
	return renderReports(ios, f, reports)
}

// renderReports writes the reports as the flags ask and turns their
// verdict into the exit status.
func renderReports(ios *IO, f *reportFlags, reports []report.Report) error {
	opts := f.renderOptions(false)
	opts.Color = reportColor(f, ios.Out)
	err := writeOutput(f.Output, ios.Out, func(w io.Writer) error {
		return report.Render(w, report.Format(f.Format), reports, opts)
	})
	if err != nil {
		return invalid(err)
	}
	for _, r := range reports {
		if !r.Valid {
			return &ExitError{Code: ExitFailed}
		}
	}
	return nil
}
