package cmd

import (
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/output"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// genOptions are the flags of `ckpt gen`.
type genOptions struct {
	Config gen.Config
	JSONL  bool
	Gzip   bool
	Output string
	// maxEvents is --max-events (0: from --events).
	maxEvents int
}

func newGenCmd(ios *IO) *cobra.Command {
	opts := &genOptions{Config: gen.DefaultConfig()}
	c := &opts.Config
	cmd := &cobra.Command{
		Use:   "gen [flags] [-o OUT]",
		Short: "Write a random valid execution trace",
		Long: `gen writes a random, valid ckpt/trace@1 execution trace (SPEC §10):
processes that compute, send and receive over a topology with random
delays, checkpoint timer ticks, log flushes, failures and messages left in
transit. The same flags and --seed always give the same bytes. Output is
streamed, so --events may be in the tens of millions.

Durations are in seconds. A distribution is exp:MEAN, uniform:A:B or
fixed:D. --tick takes one period or a comma list of at most one per
process, cycled over the processes (P_i gets the (i mod len)-th), for
different rates; 0 means no timer. --events counts program operations (send, recv, internal) only.
OUT ending in .jsonl (or .jsonl.gz) selects JSON Lines, .gz gzip.`,
		Example: `  ckpt gen --procs 8 --events 20000 --failures 4 --concurrent --seed 7 | ckpt verify -
  ckpt gen --topology ring --delay uniform:0.1:2 --tick 5,7,11 -o t.jsonl.gz`,
		Args: takesArgs(""),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runGen(ios, opts)
		},
	}
	f := cmd.Flags()
	f.Var(intFlag(&c.Procs, 1), "procs", "number of processes")
	f.Var(intFlag(&c.Events, 0), "events", "number of program operations (send, recv, internal)")
	f.Uint64Var(&c.Seed, "seed", c.Seed, "random seed")
	f.Var(fractionFlag(&c.SendRatio), "send-ratio", "probability that an op a process starts itself is a send, not an internal op")
	f.Var(value[gen.Topology]{p: &c.Topology, typ: "topology", parse: gen.ParseTopology}, "topology", "who sends to whom: complete, ring, star or random")
	f.Var(distFlag(&c.Delay), "delay", "message delay distribution")
	f.Var(distFlag(&c.OpGap), "op-gap", "distribution of the time between a process's own ops")
	f.Var(value[[]trace.Time]{p: &c.Ticks, typ: "P[,P...]", parse: gen.ParseTicks, show: joinTimes}, "tick", "checkpoint timer period(s), one or a comma list (0: none)")
	f.Var(distFlag(&c.TickInterval), "tick-interval", "draw every interval between a process's ticks from this distribution instead of --tick (the classic workload: uniform:0.5·ICT:1.5·ICT)")
	f.Var(secondsFlag(&c.FlushEvery, false), "flush-every", "log flush period per process (0: never)")
	f.Var(intFlag(&c.Failures, 0), "failures", "number of failures")
	f.BoolVar(&c.Concurrent, "concurrent", c.Concurrent, "let failures fall inside another failure's recovery window")
	f.Var(intFlag(&c.InTransit, 0), "in-transit", "messages sent and never received")
	f.Var(secondsFlag(&c.Down, true), "down", "down time of every failure (default: the restart delay)")
	f.Var(secondsFlag(&c.Params.RestartDelay, true), "restart-delay", "params.restart_delay to write")
	f.Var(secondsFlag(&c.Params.ControlDelay, true), "control-delay", "params.control_delay to write")
	f.Var(secondsFlag(&c.Params.DefaultDelay, true), "default-delay", "params.default_delay to write")
	f.Var(secondsFlag(&c.Resolution, true), "resolution", "quantum of random durations")
	f.Var(intFlag(&opts.maxEvents, 0), "max-events", "stop (exit 2, no output file) once the trace passes this many events; 0: 10 × --events + 1000000")
	f.BoolVar(&opts.JSONL, "jsonl", false, "write JSON Lines")
	f.BoolVar(&opts.Gzip, "gzip", false, "gzip the output")
	f.StringVarP(&opts.Output, "output", "o", "", "output file (default stdout), written atomically")
	return cmd
}

func runGen(ios *IO, opts *genOptions) error {
	if err := opts.Config.Validate(); err != nil {
		return usagef("gen: %v", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	w, err := traceWriteOptions(opts.Output, opts.JSONL, opts.Gzip)
	if err != nil {
		return err
	}
	opts.Config.MaxEvents = int64(opts.maxEvents)
	if opts.maxEvents == 0 {
		// Ticks and flushes add a fraction of the ops at sane settings;
		// ten times is a runaway (a 10 ns tick over the run).
		opts.Config.MaxEvents = 10*int64(opts.Config.Events) + 1_000_000
	}
	return output.Write(opts.Output, ios.Out, func(out io.Writer) error {
		_, err := gen.Write(out, opts.Config, w)
		return err
	})
}

// distFlag is a distribution of durations: exp:MEAN, uniform:A:B or
// fixed:D.
func distFlag(d *gen.Dist) value[gen.Dist] {
	return value[gen.Dist]{p: d, typ: "dist", parse: gen.ParseDist}
}

// joinTimes is --tick's default as it is given: "5,7,11".
func joinTimes(ts []trace.Time) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.String()
	}
	return strings.Join(s, ",")
}
