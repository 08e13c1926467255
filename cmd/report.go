package cmd

import (
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/consistency/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// newReportCmd builds `ckpt report [flags] FILE`.
func newReportCmd(ios *IO) *cobra.Command {
	f := &reportFlags{}
	c := &cobra.Command{
		Use:   "report [flags] FILE",
		Short: "Full recovery-line report of a trace or run",
		Long: `report prints everything ckpt knows about one trace or run (FILE, "-"
for stdin): for every algorithm and every failure, where each process
rolled back to and why — restored checkpoint (sn for ms, vector time for
pk), ops undone, messages replayed, discarded and resent, and the extra
rollback against the maximum consistent recovery line of checkpoints —
then the property verdicts with their witnesses, the statistics, the
uncoordinated-checkpointing baseline (domino effect, ops undone, useless
checkpoints) beside the algorithm, and ms and pk side by side.

A trace is replayed through --algo (default both) and checked; a run is
checked as it is (--algo and the delay flags do not apply), with the source
trace its header names when that file can be read.

Exit status: 0 every property holds, 1 a property fails, 2 invalid input
or usage — whatever the --format.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReport(ios, f, args[0])
		},
	}
	addReportFlags(c, f)
	return c
}

func runReport(ios *IO, f *reportFlags, path string) error {
	if err := f.validate(); err != nil {
		return err
	}
	reports, err := reportsFor(ios, f, path)
	if err != nil {
		return invalid(err)
	}
	opts := f.renderOptions(true)
	opts.Color = reportColor(f, ios.Out)
	err = writeOutput(f.Output, ios.Out, func(w io.Writer) error {
		return report.Render(w, report.Format(f.Format), reports, opts)
	})
	if err != nil {
		return invalid(err)
	}
	if !report.AllValid(reports) {
		return &ExitError{Code: ExitFailed}
	}
	return nil
}

// reportsFor reads path (a trace or a run) and returns its reports: one
// per algorithm for a trace, one for a run.
func reportsFor(ios *IO, f *reportFlags, path string) ([]report.Report, error) {
	var (
		tr  *trace.Trace
		run *trace.Run
		err error
	)
	if path == "-" {
		tr, run, err = trace.ReadAny("-", ios.In)
	} else {
		tr, run, err = trace.ReadAnyFile(path)
	}
	if err != nil {
		return nil, err
	}
	if run != nil {
		r := consistency.Check(run, reportSource(run, path))
		r.File = path
		return []report.Report{r}, nil
	}
	params, err := f.params()
	if err != nil {
		return nil, err
	}
	return verifyTrace(tr, path, f, params)
}

// reportSource reads the trace a run's header names, if it can: as
// written, else relative to the run's directory (a run and its trace are
// usually moved together). A source that is missing, invalid or of other
// processes is not used: the checker then reports equivalence unknown
// rather than judging the run against the wrong program.
func reportSource(run *trace.Run, runPath string) *trace.Trace {
	if run.Source == "" || run.Source == "-" {
		return nil
	}
	candidates := []string{run.Source}
	if !filepath.IsAbs(run.Source) && runPath != "-" {
		candidates = append(candidates, filepath.Join(filepath.Dir(runPath), run.Source))
	}
	for _, p := range candidates {
		tr, err := trace.ReadTraceFile(p)
		if err != nil {
			continue
		}
		if slices.Equal(tr.Processes, run.Processes) {
			return tr
		}
	}
	return nil
}

// reportColor allows colour only for text written to a terminal, and
// never when NO_COLOR is set (no-color.org) or TERM is dumb.
func reportColor(f *reportFlags, w io.Writer) bool {
	if report.Format(f.Format) != report.Text || (f.Output != "" && f.Output != "-") {
		return false
	}
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	file, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := file.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
