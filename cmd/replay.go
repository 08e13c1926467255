package cmd

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/ckpt-dev/ckpt/output"
	"github.com/ckpt-dev/ckpt/pipeline"
	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// replayOptions are the flags of `ckpt replay`.
type replayOptions struct {
	File    string
	Algo    string
	Output  string
	Variant string
	Quiet   bool
	// params are --restart-delay and --control-delay.
	params trace.Params
}

// newReplayCmd builds `ckpt replay --algo ms|pk FILE [-o OUT]`.
func newReplayCmd(ios *IO) *cobra.Command {
	o := &replayOptions{}
	c := &cobra.Command{
		Use:   "replay --algo " + strings.Join(algorithms.AllNames, "|") + " FILE [-o OUT]",
		Short: "Replay a trace through one algorithm and write the run",
		Long: `replay runs the execution trace FILE ("-" for stdin) through the
discrete-event replay engine driving one recovery algorithm and writes the
resulting run (ckpt/run@1; from 64 processes ckpt/run@2, which writes
vectors by their differences): JSON by default, JSON Lines when OUT ends
in .jsonl, gzip-compressed when it ends in .gz. A file is written while
the run is made. The run names its source
trace relative to OUT's directory (as given, on stdout), so that ckpt
check finds it from wherever it runs.

` + algorithms.Help(),
		Args: exactArgs(1, "FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.File = args[0]
			return runReplay(ios, o)
		},
	}
	fl := c.Flags()
	fl.StringVar(&o.Algo, "algo", "", "algorithm: "+algorithms.Choice(algoNames(false))+" (required)")
	fl.StringVarP(&o.Output, "output", "o", "", "write the run to this file (atomically) instead of stdout")
	addDelayFlags(fl, &o.params)
	fl.StringVar(&o.Variant, "variant", "", variantHelp(algoNames(false)))
	// -q is one of SPEC §8's shared flags; replay prints nothing but the
	// run and its errors, so it is accepted and changes nothing.
	fl.BoolVarP(&o.Quiet, "quiet", "q", false, "quiet (replay prints only the run and errors anyway)")
	return c
}

func runReplay(ios *IO, o *replayOptions) error {
	if o.Algo == "" {
		return usagef("--algo is required (%s)", algorithms.Choice(algoNames(false)))
	}
	if err := checkAlgo(o.Algo, o.Variant, algoNames(false)); err != nil {
		return err
	}
	tr, err := readOne("ckpt replay", pipeline.TraceDoc, o.File, ios.pipe().ReadTrace)
	if err != nil {
		return err
	}
	if err := ios.pipe().Fits(tr, []string{o.Algo}, false); err != nil {
		return invalid(err)
	}
	alg, err := algorithms.New(o.Algo, o.Variant, tr)
	if err != nil {
		return invalid(err)
	}
	wo, err := traceWriteOptions(o.Output, false, false)
	if err != nil {
		return err
	}
	// Wide runs are written as ckpt/run@2, vectors by their differences
	// (docs/formats.md): at 4,096 processes a dense vector is 40 KB of
	// text per event. Narrow ones stay @1, which people read.
	wo.Compact = len(tr.Processes) >= compactFrom
	opts := replay.Options{Params: o.params, Variant: o.Variant}
	source := sourceFor(o.File, o.Output)
	if o.Output == "" || o.Output == "-" {
		// Stdout gets nothing when the replay fails: the run is made
		// whole first.
		run, err := replay.Run(tr, alg, opts)
		if err != nil {
			return invalid(pipeline.Labelled(err, pipeline.TraceDoc))
		}
		run.Source = source
		return output.Write(o.Output, ios.Out, func(w io.Writer) error { return codec.WriteRun(w, run, wo) })
	}
	return output.Write(o.Output, ios.Out, func(w io.Writer) error {
		return replayTo(w, tr, alg, opts, wo, source)
	})
}

// replayTo writes the run to w while the engine makes it (a file, which
// writeOutput removes if the replay fails), so that the engine lets go
// of every vector once it is written.
func replayTo(w io.Writer, tr *trace.Trace, alg replay.Algorithm, opts replay.Options, wo codec.WriteOptions, source string) error {
	var rw *codec.RunWriter
	var werr error
	opts.Stream = func(run *trace.Run, upto int) int {
		if rw == nil && werr == nil {
			run.Source = source
			rw, werr = codec.NewRunWriter(w, run, wo)
		}
		if werr == nil {
			werr = rw.Write(run, upto)
		}
		return upto
	}
	if _, err := replay.Run(tr, alg, opts); err != nil {
		return invalid(pipeline.Labelled(err, pipeline.TraceDoc))
	}
	if werr != nil {
		return werr
	}
	return rw.Close()
}

// compactFrom is the number of processes from which replay writes
// ckpt/run@2.
const compactFrom = 64

// sourceFor is the source trace's name as a run written to out records
// it: relative to the run file's directory, so that check finds it from
// wherever it runs and a run moved together with its trace keeps
// finding it. A run written to stdout (whose place is unknown) keeps the
// path as given, and stdin stays "-".
func sourceFor(file, out string) string {
	if file == "-" || out == "" || out == "-" {
		return file
	}
	dir := filepath.Dir(out)
	if filepath.IsAbs(file) != filepath.IsAbs(dir) {
		absFile, err1 := filepath.Abs(file)
		absDir, err2 := filepath.Abs(dir)
		if err1 != nil || err2 != nil {
			return file
		}
		file, dir = absFile, absDir
	}
	rel, err := filepath.Rel(dir, file)
	if err != nil {
		return file
	}
	return filepath.ToSlash(rel)
}
