package cmd

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
	"github.com/ckpt-dev/ckpt/trace/shiviz"
)

// importShivizOptions are the flags of `ckpt import shiviz`.
type importShivizOptions struct {
	Regex, Delimiter string
	Output           string
	JSONL, Gzip      bool
	Quiet            bool

	Step       trace.Time
	TimeGroup  string
	TimeLayout string
	TickEvery  int
	TickPeriod string
	FlushEvery int
	FailAt     []string
	FailMatch  string
	Down       trace.Time

	RestartDelay, ControlDelay trace.Time
}

// newImportCmd builds `ckpt import`, a parent for one subcommand per
// foreign log format.
func newImportCmd(ios *IO) *cobra.Command {
	c := &cobra.Command{
		Use:   "import",
		Short: "Convert logs of real systems into execution traces",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return invalidf("import needs a format: ckpt import shiviz FILE")
		},
	}
	c.AddCommand(newImportShivizCmd(ios))
	return c
}

func newImportShivizCmd(ios *IO) *cobra.Command {
	o := &importShivizOptions{}
	c := &cobra.Command{
		Use:   "shiviz [flags] FILE",
		Short: "Convert a ShiViz / GoVector vector-clock log into a ckpt/trace@1 trace",
		Long: `Parse a ShiViz / GoVector log with a regular expression (named groups host,
clock and event; other named groups become part of the label), infer the
messages from the vector clocks as ShiViz does, order the events causally
and write an execution trace. Times are the events' positions (--step apart)
or come from a timestamp group (--time-group). Checkpoint ticks, flushes and
failures can be added for recovery analysis.

With --delimiter the log holds several executions and -o names a directory
that receives one trace per execution, NAME-1.json, NAME-2.json, ...`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runImportShiviz(ios, o, args[0])
		},
	}
	fl := c.Flags()
	fl.StringVar(&o.Regex, "regex", "", "parser regular expression (default: the log's first line if it is one, else ShiViz's default)")
	fl.StringVar(&o.Delimiter, "delimiter", "", "regular expression separating executions (its group \"trace\" labels them)")
	fl.StringVarP(&o.Output, "output", "o", "", "output file (a directory with --delimiter); default stdout")
	fl.BoolVar(&o.JSONL, "jsonl", false, "write JSON Lines")
	fl.BoolVar(&o.Gzip, "gzip", false, "gzip the output")
	fl.BoolVarP(&o.Quiet, "quiet", "q", false, "do not print the summary on stderr")
	o.Step = shiviz.DefaultStep
	fl.Var(secondsFlag{t: &o.Step, positive: true}, "step", "seconds between consecutive ops when times come from positions")
	fl.StringVar(&o.TimeGroup, "time-group", "", "take times from this regex group (e.g. date) instead of positions")
	fl.StringVar(&o.TimeLayout, "time-layout", "", "Go time layout of --time-group (default: try common log layouts)")
	fl.Var(intFlag{&o.TickEvery, 0}, "tick-every", "add a checkpoint tick after every K events of each process")
	fl.StringVar(&o.TickPeriod, "tick-period", "", "add checkpoint ticks every P seconds (P, or P0,P1,... per process)")
	fl.Var(intFlag{&o.FlushEvery, 0}, "flush-every", "add a log flush after every K events of each process")
	fl.StringArrayVar(&o.FailAt, "fail-at", nil, "inject a failure after the N-th event of HOST (HOST:N, repeatable)")
	fl.StringVar(&o.FailMatch, "fail-match", "", "inject a failure after every event whose text matches this regex (e.g. Crashing)")
	fl.Var(secondsFlag{t: &o.Down, positive: true}, "down", "seconds an injected failure keeps its process down (default: restart_delay)")
	fl.Var(secondsFlag{t: &o.RestartDelay, positive: true}, "restart-delay", "params.restart_delay written into the trace, in seconds")
	fl.Var(secondsFlag{t: &o.ControlDelay, positive: true}, "control-delay", "params.control_delay written into the trace, in seconds")
	return c
}

// importOptions turns the flags into shiviz.ImportOptions; errors are
// usage errors.
func (o *importShivizOptions) importOptions() (shiviz.ImportOptions, error) {
	opt := shiviz.ImportOptions{Step: o.Step, Down: o.Down, TickEvery: o.TickEvery, FlushEvery: o.FlushEvery}
	opt.Params.RestartDelay, opt.Params.ControlDelay = o.RestartDelay, o.ControlDelay
	var err error
	if o.TickPeriod != "" {
		opt.TickPeriod, err = gen.ParseTicks(o.TickPeriod)
		if err != nil || slices.Contains(opt.TickPeriod, 0) {
			return opt, usagef("--tick-period %s: want a number of seconds > 0, or a comma list of them (one per process)", o.TickPeriod)
		}
	}
	for _, f := range o.FailAt {
		fp, err := shiviz.ParseFailPoint(f)
		if err != nil {
			return opt, usageError(err)
		}
		opt.FailAt = append(opt.FailAt, fp)
	}
	if o.FailMatch != "" {
		if opt.FailMatch, err = regexp.Compile(o.FailMatch); err != nil {
			return opt, usagef("--fail-match %s: not a regular expression: %v", o.FailMatch, err)
		}
	}
	opt.TimeGroup, opt.TimeLayout = o.TimeGroup, o.TimeLayout
	return opt, nil
}

func runImportShiviz(ios *IO, o *importShivizOptions, file string) error {
	opts, err := o.importOptions()
	if err != nil {
		return err
	}
	var r io.Reader
	name := file
	if file == "-" {
		r = openStdin(ios)
	} else {
		if isDir(file) {
			return invalidf("%s: %s", file, dirError("ckpt import shiviz", "ShiViz log").Error())
		}
		readingInput(file)
		f, err := os.Open(file)
		if err != nil {
			return invalidf("%s: %s", file, osErrorText(unwrapPath(err)))
		}
		defer f.Close()
		r = f
	}
	log, err := shiviz.Parse(name, r, shiviz.ParseOptions{Regex: o.Regex, Delimiter: o.Delimiter})
	if err != nil {
		return invalid(err)
	}
	if o.Delimiter == "" {
		return o.writeOne(ios, name, log.Executions[0], opts)
	}
	return o.writeEach(ios, file, name, log, opts)
}

// writeOne converts the log's only execution and writes its trace.
func (o *importShivizOptions) writeOne(ios *IO, name string, ex *shiviz.Execution, opts shiviz.ImportOptions) error {
	wopts, err := traceWriteOptions(o.Output, o.JSONL, o.Gzip)
	if err != nil {
		return err
	}
	tr, st, err := ex.Trace(name, opts)
	if err != nil {
		return invalid(err)
	}
	if err := o.checkMatched(name, st.Matched); err != nil {
		return err
	}
	o.summary(ios, name, ex, st)
	return writeOutput(o.Output, ios.Out, func(w io.Writer) error {
		return trace.WriteTrace(w, tr, wopts)
	})
}

// writeEach converts every execution of the log and writes one trace
// per execution into the -o directory; nothing is written unless every
// execution converts.
func (o *importShivizOptions) writeEach(ios *IO, file, name string, log *shiviz.Log, opts shiviz.ImportOptions) error {
	if o.Output == "" || o.Output == "-" {
		return usagef("import shiviz --delimiter writes one trace per execution: give -o DIR")
	}
	base := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	if file == "-" {
		base = "stdin"
	}
	ext := ".json"
	if o.JSONL {
		ext = ".jsonl"
	}
	if o.Gzip {
		ext += ".gz"
	}
	width := len(fmt.Sprint(len(log.Executions)))
	traces := make([]*trace.Trace, len(log.Executions))
	stats := make([]shiviz.Stats, len(log.Executions))
	matched := 0
	for i, ex := range log.Executions {
		var err error
		if traces[i], stats[i], err = ex.Trace(name, opts); err != nil {
			return invalid(err)
		}
		matched += stats[i].Matched
	}
	if err := o.checkMatched(name, matched); err != nil {
		return err
	}
	if err := os.MkdirAll(o.Output, 0o755); err != nil {
		return invalidf("-o %s: cannot create the directory: %s", o.Output, osErrorText(unwrapPath(err)))
	}
	wopts := trace.WriteOptions{JSONL: o.JSONL, Gzip: o.Gzip}
	for i, ex := range log.Executions {
		out := filepath.Join(o.Output, fmt.Sprintf("%s-%0*d%s", base, width, i+1, ext))
		o.summary(ios, out, ex, stats[i])
		if err := writeOutput(out, ios.Out, func(w io.Writer) error {
			return trace.WriteTrace(w, traces[i], wopts)
		}); err != nil {
			return invalid(err)
		}
	}
	return nil
}

// checkMatched rejects a --fail-match pattern that matched no event: the
// user asked for failures and would otherwise get a trace without any,
// which verifies valid without exercising recovery.
func (o *importShivizOptions) checkMatched(name string, matched int) error {
	if o.FailMatch != "" && matched == 0 {
		return invalidf("%s: --fail-match %q matches no event's text, so no failure would be injected (the pattern is a Go regular expression, matched against each event's text)", name, o.FailMatch)
	}
	return nil
}

func (o *importShivizOptions) summary(ios *IO, name string, ex *shiviz.Execution, st shiviz.Stats) {
	if o.Quiet {
		return
	}
	label := ""
	if ex.Label != "" {
		label = fmt.Sprintf(" (execution %q)", ex.Label)
	}
	fmt.Fprintf(ios.ErrOut, "%s%s: %s, %s, %s, %s, %s; %s skipped", name, label,
		plural(st.Processes, "process", "processes"), plural(st.Events, "event", "events"),
		plural(st.Messages, "message", "messages"), plural(st.Ticks, "tick", "ticks"),
		plural(st.Flushes, "flush", "flushes")+", "+plural(st.Fails, "failure", "failures"),
		plural(ex.Skipped, "unmatched line", "unmatched lines"))
	if st.Clamped > 0 {
		fmt.Fprintf(ios.ErrOut, "; %s raised to keep causal order", plural(st.Clamped, "timestamp", "timestamps"))
	}
	fmt.Fprintln(ios.ErrOut)
}
