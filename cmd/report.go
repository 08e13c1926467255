package cmd

import (
	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/pipeline"
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

Exit status: 0 every property holds; 1 a property fails, or nothing
could be checked (verdict unknown; with --strict, any unknown property);
2 invalid input (reported in the output too) or usage — whatever the
--format.`,
		Args: takesArgs("FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReport(ios, f, args[0])
		},
	}
	addReportFlags(c, f, algoNames(true))
	return c
}

func runReport(ios *IO, f *reportFlags, path string) error {
	if err := f.validate(); err != nil {
		return err
	}
	in := []pipeline.Input{{Path: path, Err: dirError("ckpt report", "trace or run", path)}}
	reports, lines := checkFiles(ios, in, nil, func(path string) fileResult {
		// A run file is checked in two passes (pipeline.CheckFile), in
		// memory linear in its events; stdin is read whole.
		var res fileResult
		if ios.pipe().IsRun(path) {
			res = checked(ios.pipe().CheckFile(path))
		} else {
			tr, run, err := ios.pipe().ReadAny(path)
			switch {
			case err != nil:
				return fileResult{err: err}
			case tr != nil:
				return fileResult{reports: verifyTrace(ios, tr, path, f)}
			}
			res = checked(ios.pipe().Check(run, path))
		}
		if n := f.ignoredNote(path); n != "" {
			res.notes = append([]string{n}, res.notes...)
		}
		return res
	})
	return finishReports(ios, f, reports, lines, true)
}
