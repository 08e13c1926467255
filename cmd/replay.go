package cmd

import (
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/output"
	"github.com/ckpt-dev/ckpt/pipeline"
	"github.com/ckpt-dev/ckpt/render"
)

// replayOptions are the flags of `ckpt replay`.
type replayOptions struct {
	Output string
	replayFlags
}

// newReplayCmd builds `ckpt replay --algo ms|pk FILE [-o OUT]`.
func newReplayCmd(ios *IO) *cobra.Command {
	o := &replayOptions{}
	c := &cobra.Command{
		Use:   "replay --algo " + strings.Join(algorithms.AllNames, "|") + " FILE [-o OUT]",
		Short: "Replay a trace through one algorithm and write the run",
		Long: `replay runs the execution trace FILE ("-" for stdin) through the
discrete-event replay engine driving one recovery algorithm and writes the
resulting run (ckpt/run@1; from 64 processes, or for pk from 64
failures, ckpt/run@2, which writes vectors and token lists by their
differences): JSON by default, JSON Lines when OUT ends
in .jsonl, gzip-compressed when it ends in .gz. A file is written while
the run is made. The run names its source
trace relative to OUT's directory (as given, on stdout), so that ckpt
check finds it from wherever it runs.

` + render.AlgorithmHelp(),
		Args: takesArgs("FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReplay(ios, o, args[0])
		},
	}
	fl := c.Flags()
	o.add(fl, algoNames(false), "", "algorithm: "+algorithms.Choice(algoNames(false))+" (required)")
	fl.StringVarP(&o.Output, "output", "o", "", "write the run to this file (atomically) instead of stdout")
	// -q is one of SPEC §8's shared flags; replay prints nothing but the
	// run and its errors, so it is accepted and changes nothing.
	fl.BoolP("quiet", "q", false, "quiet (replay prints only the run and errors anyway)")
	return c
}

func runReplay(ios *IO, o *replayOptions, file string) error {
	if o.Algo == "" {
		return usagef("--algo is required (%s)", algorithms.Choice(algoNames(false)))
	}
	if err := o.check(); err != nil {
		return err
	}
	tr, err := readOne("ckpt replay", pipeline.TraceDoc, file, ios.pipe().ReadTrace)
	if err != nil {
		return err
	}
	wo, err := traceWriteOptions(o.Output, false, false)
	if err != nil {
		return err
	}
	// A file is written while the run is made (output.Write removes it
	// if the replay fails); stdout gets nothing unless the replay
	// succeeds.
	stream := o.Output != "" && o.Output != "-"
	source := pipeline.SourceFor(file, o.Output)
	return output.Write(o.Output, ios.Out, func(w io.Writer) error {
		return ios.pipe().WriteRun(w, tr, o.Algo, o.Variant, o.Params, source, wo, stream)
	})
}
