package cmd

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace/codec"
)

// newCheckCmd builds `ckpt check [flags] RUN...`.
func newCheckCmd(ios *IO) *cobra.Command {
	f, source := &reportFlags{}, ""
	c := &cobra.Command{
		Use:   "check [flags] RUN...",
		Short: "Check recorded runs (ckpt/run@1 or @2) as they are, replaying nothing",
		Long: `check reads runs (ckpt/run@1 or @2) — written by ckpt replay or recorded by
another implementation — and judges every property of the consistency
checker on them as they are. "-" reads stdin; a directory means every run
in it, in name order (what else it holds is skipped, saying so on
stderr). When a run's header names a source trace that can be read
(relative to the run file, or as written), equivalence is judged against
it; otherwise it is unknown, and stderr says why. --trace FILE gives the
source trace instead (a run moved away from its trace, or replayed from
stdin).

Exit status: 0 every property holds; 1 a property fails, or nothing
could be checked (verdict unknown; with --strict, any unknown property);
2 a file is invalid (every other file is still reported), or usage.`,
		Args: takesArgs("RUN..."),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCheck(ios, f, source, args)
		},
	}
	addReportFlags(c, f, algoNames(true))
	c.Flags().StringVar(&source, "trace", "", "judge the runs against this source trace instead of the one their header names")
	// check replays nothing: the replay flags do not apply.
	for _, name := range replayFlagNames {
		_ = c.Flags().MarkHidden(name)
	}
	return c
}

func runCheck(ios *IO, f *reportFlags, source string, args []string) error {
	if err := f.validate(); err != nil {
		return err
	}
	if source != "" {
		if _, err := os.Stat(source); err != nil {
			return fmt.Errorf("--trace %s: %w", source, errors.Unwrap(err))
		}
	}
	ios.pipe().Trace = source
	inputs, err := expandInputs(ios.ErrOut, args, codec.RunFormat)
	if err != nil {
		return err
	}
	reports, lines := checkFiles(ios, inputs, nil, func(path string) fileResult {
		return checked(ios.pipe().CheckFile(path))
	})
	return finishReports(ios, f, reports, lines, false)
}

// checked is the result of a check that gave r, note and err.
func checked(r report.Report, note string, err error) fileResult {
	if err != nil {
		return fileResult{err: err}
	}
	res := fileResult{reports: []report.Report{r}}
	if note != "" {
		res.notes = []string{note}
	}
	return res
}
