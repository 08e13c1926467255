package cmd

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/consistency/report"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// newVerifyCmd builds `ckpt verify [flags] FILE...`.
func newVerifyCmd(ios *IO) *cobra.Command {
	f := &reportFlags{}
	c := &cobra.Command{
		Use:   "verify [flags] FILE...",
		Short: "Replay traces through ms and/or pk and check every recovery",
		Long: `verify replays each execution trace (ckpt/trace@1) through --algo ms, pk
or both (the default) and runs the consistency checker on every run: are
the recovery lines orphan-free, is nothing lost or delivered twice, do the
logging and replay rules hold, is there no domino effect, ... "-" reads
stdin; a directory means every file in it, in name order. Files are
verified in parallel; reports keep the order of the arguments.

Exit status: 0 every property holds, 1 a property fails, 2 invalid input
or usage.`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVerify(ios, f, args)
		},
	}
	addReportFlags(c, f)
	return c
}

func runVerify(ios *IO, f *reportFlags, args []string) error {
	if err := f.validate(); err != nil {
		return err
	}
	params, err := f.params()
	if err != nil {
		return err
	}
	paths, err := expandInputs(args, trace.TraceFormat)
	if err != nil {
		return invalid(err)
	}
	prog := newProgress(ios.ErrOut, len(paths))
	reports, err := parallelReportsProgress(paths, prog, func(path string) ([]report.Report, error) {
		var tr *trace.Trace
		var err error
		if path == "-" {
			tr, err = trace.ReadTrace("-", ios.In)
		} else {
			tr, err = trace.ReadTraceFile(path)
		}
		if err != nil {
			return nil, err
		}
		return verifyTrace(tr, path, f, params)
	})
	if err != nil {
		return invalid(err)
	}
	return renderReports(ios, f, reports)
}

// verifyTrace replays tr through every algorithm the flags select and
// checks each run against tr.
func verifyTrace(tr *trace.Trace, path string, f *reportFlags, params trace.Params) ([]report.Report, error) {
	var out []report.Report
	names := f.algorithms()
	for i, name := range names {
		variant := f.variantFor(name)
		alg, err := algorithms.New(name, variant, tr)
		if err != nil {
			return nil, err
		}
		run, err := replay.Run(tr, alg, replay.Options{Params: params, Variant: variant})
		if err != nil {
			return nil, fmt.Errorf("%s: replaying through %s: %w", path, name, err)
		}
		r := consistency.Check(run, tr)
		r.File = path
		out = append(out, r)
		if len(tr.Events) >= bigTrace && i+1 < len(names) {
			// The next run is built while this one is garbage: without a
			// collection now, the heap target set while it was live lets
			// the next grow on top of it (verify --algo both on 10^6
			// events: 940 MB -> 740 MB peak RSS, docs/performance.md).
			runtime.GC()
		}
	}
	return out, nil
}

// bigTrace is the size from which verify collects garbage between runs:
// below it a run is small and the collection not worth its cost.
const bigTrace = 1 << 17

// expandInputs replaces every directory argument by the regular files in
// it, in name order (hidden files skipped); "-" and files stay as given.
func expandInputs(args []string, want string) ([]string, error) {
	var out []string
	stdin := 0
	for _, a := range args {
		if a == "-" {
			if stdin++; stdin > 1 {
				return nil, fmt.Errorf("-: stdin can be read only once")
			}
			out = append(out, a)
			continue
		}
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, a)
			continue
		}
		entries, err := os.ReadDir(a)
		if err != nil {
			return nil, err
		}
		var names []string
		for _, e := range entries {
			if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") && isInputName(e.Name()) {
				name := filepath.Join(a, e.Name())
				if otherFormat(name, want) {
					continue
				}
				names = append(names, name)
			}
		}
		sort.Strings(names)
		if len(names) == 0 {
			return nil, fmt.Errorf("%s: no %s files (.json, .jsonl or .gz) in the directory", a, want)
		}
		out = append(out, names...)
	}
	return out, nil
}

// otherFormat reports whether the file at path is a ckpt document of a
// format other than want (a run in a directory of traces given to verify,
// or the reverse for check): "every trace in it" (SPEC §8) skips those.
// Files whose format cannot be told are kept, so that bad input is still
// reported.
func otherFormat(path, want string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	got, _, err := trace.Detect(f)
	if err != nil {
		return false
	}
	return (got == trace.TraceFormat || got == trace.RunFormat) && got != want
}

// isInputName tells trace and run files from READMEs and the like in a
// directory argument.
func isInputName(name string) bool {
	name = strings.TrimSuffix(name, ".gz")
	return strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".jsonl")
}

// parallelReports runs one per file on a pool of runtime.NumCPU()
// workers and returns the reports in argument order. The first error in
// argument order wins, so the message does not depend on scheduling.
func parallelReports(paths []string, one func(path string) ([]report.Report, error)) ([]report.Report, error) {
	return parallelReportsProgress(paths, nil, one)
}

// parallelReportsProgress is parallelReports counting finished files on
// prog (which may be nil).
func parallelReportsProgress(paths []string, prog *progress, one func(path string) ([]report.Report, error)) ([]report.Report, error) {
	type result struct {
		reports []report.Report
		err     error
	}
	results := make([]result, len(paths))
	jobs := make(chan int)
	var wg sync.WaitGroup
	workers := min(runtime.NumCPU(), len(paths))
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				rs, err := one(paths[i])
				results[i] = result{rs, err}
				prog.done()
			}
		}()
	}
	for i := range paths {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	prog.finish()
	var out []report.Report
	for _, r := range results {
		if r.err != nil {
			return nil, r.err
		}
		out = append(out, r.reports...)
	}
	return out, nil
}

// progress is the "verified k/n files" line verify keeps on stderr while
// it works through several files. It is drawn only on a terminal: on a
// pipe or in a file it would be noise mixed into captured diagnostics.
// A nil *progress draws nothing.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	n     int
	k     int
	width int // of the last line drawn, to blank it at the end
}

// newProgress returns a progress line for n files on w, or nil when there
// is a single file (nothing to count) or w is not a terminal.
func newProgress(w io.Writer, n int) *progress {
	if n < 2 || !isTerminal(w) {
		return nil
	}
	p := &progress{w: w, n: n}
	p.draw()
	return p
}

// isTerminal reports whether w is a character device (a terminal), by
// the file's mode: no dependency beyond os.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// done counts one more file and redraws the line.
func (p *progress) done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.k++
	p.draw()
}

// draw writes the line over the previous one; the caller holds mu (or is
// the constructor).
func (p *progress) draw() {
	const barWidth = 30
	filled := barWidth * p.k / p.n
	line := fmt.Sprintf("verify [%s%s] %d/%d files", strings.Repeat("=", filled), strings.Repeat(" ", barWidth-filled), p.k, p.n)
	p.width = len(line)
	fmt.Fprintf(p.w, "\r%s", line)
}

// finish blanks the line so that the reports and messages that follow
// start on a clean line.
func (p *progress) finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
}
