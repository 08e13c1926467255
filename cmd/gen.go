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

// The flag values below parse at flag-parsing time, so a bad value is a
// flag error: exit 2 with the usage, like an unknown flag.

type distValue struct{ d *gen.Dist }

func (v distValue) String() string { return v.d.String() }
func (v distValue) Type() string   { return "dist" }
func (v distValue) Set(s string) error {
	d, err := gen.ParseDist(s)
	if err != nil {
		return err
	}
	*v.d = d
	return nil
}

type topologyValue struct{ t *gen.Topology }

func (v topologyValue) String() string { return string(*v.t) }
func (v topologyValue) Type() string   { return "topology" }
func (v topologyValue) Set(s string) error {
	t, err := gen.ParseTopology(s)
	if err != nil {
		return err
	}
	*v.t = t
	return nil
}

type ticksValue struct{ t *[]trace.Time }

func (v ticksValue) String() string {
	s := make([]string, len(*v.t))
	for i, t := range *v.t {
		s[i] = t.String()
	}
	return strings.Join(s, ",")
}
func (v ticksValue) Type() string { return "P[,P...]" }
func (v ticksValue) Set(s string) error {
	t, err := gen.ParseTicks(s)
	if err != nil {
		return err
	}
	*v.t = t
	return nil
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
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runGen(ios, opts)
		},
	}
	f := cmd.Flags()
	f.Var(intFlag{&c.Procs, 1}, "procs", "number of processes")
	f.Var(intFlag{&c.Events, 0}, "events", "number of program operations (send, recv, internal)")
	f.Uint64Var(&c.Seed, "seed", c.Seed, "random seed")
	f.Var(fractionFlag{&c.SendRatio}, "send-ratio", "probability that an op a process starts itself is a send, not an internal op")
	f.Var(topologyValue{&c.Topology}, "topology", "who sends to whom: complete, ring, star or random")
	f.Var(distValue{&c.Delay}, "delay", "message delay distribution")
	f.Var(distValue{&c.OpGap}, "op-gap", "distribution of the time between a process's own ops")
	f.Var(ticksValue{&c.Ticks}, "tick", "checkpoint timer period(s), one or a comma list (0: none)")
	f.Var(distValue{&c.TickInterval}, "tick-interval", "draw every interval between a process's ticks from this distribution instead of --tick (the classic workload: uniform:0.5·ICT:1.5·ICT)")
	f.Var(secondsFlag{t: &c.FlushEvery}, "flush-every", "log flush period per process (0: never)")
	f.Var(intFlag{&c.Failures, 0}, "failures", "number of failures")
	f.BoolVar(&c.Concurrent, "concurrent", c.Concurrent, "let failures fall inside another failure's recovery window")
	f.Var(intFlag{&c.InTransit, 0}, "in-transit", "messages sent and never received")
	f.Var(secondsFlag{t: &c.Down, positive: true}, "down", "down time of every failure (default: the restart delay)")
	f.Var(secondsFlag{t: &c.Params.RestartDelay, positive: true}, "restart-delay", "params.restart_delay to write")
	f.Var(secondsFlag{t: &c.Params.ControlDelay, positive: true}, "control-delay", "params.control_delay to write")
	f.Var(secondsFlag{t: &c.Params.DefaultDelay, positive: true}, "default-delay", "params.default_delay to write")
	f.Var(secondsFlag{t: &c.Resolution, positive: true}, "resolution", "quantum of random durations")
	f.Var(intFlag{&opts.maxEvents, 0}, "max-events", "stop (exit 2, no output file) once the trace passes this many events; 0: 10 × --events + 1000000")
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
