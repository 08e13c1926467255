package cmd

import (
	"fmt"
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
	paths, err := expandInputs(args)
	if err != nil {
		return invalid(err)
	}
	reports, err := parallelReports(paths, func(path string) ([]report.Report, error) {
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
	for _, name := range f.algorithms() {
		// --variant names an MS variant: with --algo both, pk runs as is.
		variant := ""
		if name == "ms" {
			variant = f.Variant
		}
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
	}
	return out, nil
}

// expandInputs replaces every directory argument by the regular files in
// it, in name order (hidden files skipped); "-" and files stay as given.
func expandInputs(args []string) ([]string, error) {
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
				names = append(names, filepath.Join(a, e.Name()))
			}
		}
		sort.Strings(names)
		if len(names) == 0 {
			return nil, fmt.Errorf("%s: no .json, .jsonl or .gz files in the directory", a)
		}
		out = append(out, names...)
	}
	return out, nil
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
			}
		}()
	}
	for i := range paths {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	var out []report.Report
	for _, r := range results {
		if r.err != nil {
			return nil, r.err
		}
		out = append(out, r.reports...)
	}
	return out, nil
}
