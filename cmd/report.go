package cmd

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/render"
	"github.com/ckpt-dev/ckpt/report"
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

Exit status: 0 every property holds; 1 a property fails, or nothing
could be checked (verdict unknown; with --strict, any unknown property);
2 invalid input (reported in the output too) or usage — whatever the
--format.`,
		Args: exactArgs(1),
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
	params, err := f.params()
	if err != nil {
		return err
	}
	in := []input{{path: path}}
	if isDir(path) {
		in[0].err = dirError("ckpt report", "trace or run")
	}
	reports, lines := checkFiles(in, nil, func(path string) fileResult {
		tr, run, err := readAny(ios, path)
		switch {
		case err != nil:
			return fileResult{err: err}
		case run != nil:
			if err := ios.checkRunMemory(path, run); err != nil {
				return fileResult{err: err}
			}
			return checkRun(run, path)
		}
		return fileResult{reports: verifyTrace(ios, tr, path, f, params, true)}
	})
	return finishReports(ios, f, reports, lines, true)
}

// reportSource reads the trace a run's header names, if it can. The name
// is relative to the run file's directory (ckpt replay -o writes it so);
// a run written to stdout, or by an older ckpt, names it relative to the
// directory replay ran in, which is tried second. A source that is
// missing, invalid or of other processes is not used — the checker then
// reports equivalence unknown rather than judging the run against the
// wrong program — and note says why ("" when the run names none).
func reportSource(run *trace.Run, runPath string) (*trace.Trace, string) {
	if run.Source == "" || run.Source == "-" {
		return nil, ""
	}
	var candidates []string
	if !filepath.IsAbs(run.Source) && runPath != "-" {
		candidates = append(candidates, filepath.Join(filepath.Dir(runPath), run.Source))
	}
	if len(candidates) == 0 || filepath.Clean(run.Source) != candidates[0] {
		candidates = append(candidates, run.Source)
	}
	var why []string
	for _, p := range candidates {
		tr, err := trace.ReadTraceFile(p)
		switch {
		case err != nil:
			why = append(why, p+": "+describe(labelled(err, traceDoc)))
		case !slices.Equal(tr.Processes, run.Processes):
			why = append(why, p+": its processes are not the run's")
		default:
			readingInput(p)
			return tr, ""
		}
	}
	return nil, fmt.Sprintf("the source trace %q the run names cannot be used (%s)", run.Source, strings.Join(why, "; "))
}

// noteSource says in r's equivalence note why the source trace is
// missing, where the checker could only say that there is none.
func noteSource(r *report.Report, note string) {
	for i := range r.Properties {
		p := &r.Properties[i]
		if p.Name == report.Equivalence && p.Status == report.Unknown {
			p.Note = note
		}
	}
}

// reportColor allows colour only for text written to a terminal, and
// never when NO_COLOR is set (no-color.org) or TERM is dumb.
func reportColor(f *reportFlags, w io.Writer) bool {
	if render.Format(f.Format) != render.Text || (f.Output != "" && f.Output != "-") {
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
