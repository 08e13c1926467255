package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/explore"
	"github.com/ckpt-dev/ckpt/output"
	"github.com/ckpt-dev/ckpt/render"
	"github.com/ckpt-dev/ckpt/trace"
)

// exploreFlags are explore's own flags, next to the shared report flags.
type exploreFlags struct {
	report   reportFlags
	failures int
	delays   bool
	budget   int64
	seed     uint64
	shard    string
	out      string
	strip    bool
	noReduce bool
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
written as a standalone trace under --out (default: a new directory beside
FILE): ckpt verify with the same --algo/--variant fails the same property
on it.

Exit status: 0 no schedule fails, 1 some schedule fails a property, 2
invalid input or usage.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExplore(ios, f, args[0])
		},
	}
	addReportFlags(c, &f.report, recoveryNames())
	fl := c.Flags()
	fl.IntVar(&f.failures, "failures", 1, "most failures injected into one schedule (K)")
	fl.BoolVar(&f.delays, "delays", false, "also perturb message arrival orders")
	fl.Int64Var(&f.budget, "budget", explore.DefaultBudget, "most schedules to run; larger spaces are sampled")
	fl.Uint64Var(&f.seed, "seed", 0, "seed of the sampling")
	fl.StringVar(&f.shard, "shard", "1/1", "run only shard I of N (1-based), e.g. 2/4")
	fl.StringVar(&f.out, "out", "", "directory for witness traces (default: a new directory beside FILE)")
	fl.BoolVar(&f.strip, "strip-failures", false, "drop the trace's own fail events first")
	fl.BoolVar(&f.noReduce, "no-reduce", false, "run every schedule, not one per equivalence class")
	return c
}

func runExplore(ios *IO, f *exploreFlags, path string) error {
	opts, err := f.options()
	if err != nil {
		return err
	}
	tr, err := readExploreTrace(ios, path)
	if err != nil {
		return exploreError(ios, f, path, err)
	}
	prog := newProgress(ios.ErrOut, "explore", "schedules")
	if prog != nil {
		opts.Progress = prog.update
	}
	res, err := explore.Run(tr, opts)
	prog.finish()
	if errors.Is(err, explore.ErrOptions) {
		return usageError(err)
	}
	if err != nil {
		return exploreError(ios, f, path, err)
	}
	if !res.Valid {
		dir, err := writeWitnesses(res, f.out, path)
		if err != nil {
			return invalid(err)
		}
		fmt.Fprintf(ios.ErrOut, "ckpt: witnesses written to %s\n", dir)
	}
	rf := &f.report
	err = writeOutput(rf.Output, ios.Out, func(w io.Writer) error {
		return render.Explore(w, render.Format(rf.Format), res, render.Options{Quiet: rf.Quiet, Color: reportColor(rf, ios.Out)})
	})
	if err != nil {
		return invalid(err)
	}
	if !res.Valid {
		return &ExitError{Code: ExitFailed}
	}
	return nil
}

// readExploreTrace reads the one trace explore takes; a directory is
// refused as report refuses one.
func readExploreTrace(ios *IO, path string) (*trace.Trace, error) {
	if isDir(path) {
		return nil, dirError("ckpt explore", traceDoc)
	}
	return readTrace(ios, path)
}

// exploreError reports a trace that could not be read or explored as
// verify reports a bad file: an error entry in the output, in every
// format (-o written atomically all the same), and one line on stderr;
// exit status 2.
func exploreError(ios *IO, f *exploreFlags, path string, err error) error {
	msg := describe(err)
	rf := &f.report
	werr := writeOutput(rf.Output, ios.Out, func(w io.Writer) error {
		return render.ExploreError(w, render.Format(rf.Format), path, msg, render.Options{Quiet: rf.Quiet, Color: reportColor(rf, ios.Out)})
	})
	if werr != nil {
		return invalid(werr)
	}
	return invalidf("%s: %s", path, msg)
}

// options checks the flags (usage errors exit 2) and turns them into
// explore.Options.
func (f *exploreFlags) options() (explore.Options, error) {
	rf := &f.report
	if a, ok := algorithms.Lookup(rf.Algo); ok && !a.Recovery {
		return explore.Options{}, usagef("--algo %s: %s has no recovery to explore (failures are injected): want %s; ckpt compare measures how far a failure would roll it back",
			a.Name, a.Name, algorithms.Choice(recoveryNames()))
	}
	if err := rf.validate(); err != nil {
		return explore.Options{}, err
	}
	if f.failures < 0 {
		return explore.Options{}, usagef("--failures %d: want 0 or more", f.failures)
	}
	if f.budget < 1 {
		return explore.Options{}, usagef("--budget %d: want 1 or more", f.budget)
	}
	shard, err := parseShard(f.shard)
	if err != nil {
		return explore.Options{}, err
	}
	return explore.Options{
		Algorithms: rf.algorithms(), Variant: rf.Variant, Failures: f.failures,
		Delays: f.delays, Budget: f.budget, Seed: f.seed, Shard: shard,
		StripFailures: f.strip, NoReduce: f.noReduce, Params: rf.params(),
	}, nil
}

// parseShard reads --shard I/N, 1-based as CI matrices count.
func parseShard(s string) (explore.Shard, error) {
	i, n, ok := strings.Cut(s, "/")
	a, err1 := strconv.Atoi(i)
	b, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || b < 1 || a < 1 || a > b {
		return explore.Shard{}, usagef("--shard %q: want I/N with 1 <= I <= N, e.g. 2/4", s)
	}
	return explore.Shard{Index: a - 1, Count: b}, nil
}

// writeWitnesses writes every witness trace of res into dir (or, when
// dir is "", a new directory beside the input) and records the paths.
func writeWitnesses(res *explore.Result, dir, input string) (string, error) {
	var err error
	if dir == "" {
		dir, err = newWitnessDir(input)
	} else {
		err = output.MakeDir(dir)
	}
	if err != nil {
		return "", err
	}
	for a := range res.Algorithms {
		alg := &res.Algorithms[a]
		for p := range alg.Properties {
			w := alg.Properties[p].Witness
			if w == nil || w.Trace == nil {
				continue
			}
			name := filepath.Join(dir, alg.Algorithm+"-"+alg.Properties[p].Name+".json")
			err := writeOutput(name, nil, func(out io.Writer) error {
				return codec.WriteTrace(out, w.Trace, codec.WriteOptions{})
			})
			if err != nil {
				return "", err
			}
			w.Path = name
		}
	}
	return dir, nil
}

// newWitnessDir creates the default witness directory: INPUT.explore
// beside the input (without its .json/.jsonl/.gz extensions), or the first
// of INPUT.explore-2, -3, ... that does not exist yet.
func newWitnessDir(input string) (string, error) {
	stem := "stdin"
	dir := "."
	if input != "-" {
		dir = filepath.Dir(input)
		stem = filepath.Base(input)
		for _, ext := range []string{".gz", ".jsonl", ".json"} {
			stem = strings.TrimSuffix(stem, ext)
		}
	}
	for k := 1; ; k++ {
		name := filepath.Join(dir, stem+".explore")
		if k > 1 {
			name += "-" + strconv.Itoa(k)
		}
		err := os.Mkdir(name, 0o755)
		if err == nil {
			return name, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return "", err
		}
	}
}
