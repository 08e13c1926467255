package cmd

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
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

	Step       string
	TimeGroup  string
	TimeLayout string
	TickEvery  int
	TickPeriod string
	FlushEvery int
	FailAt     []string
	FailMatch  string
	Down       string

	RestartDelay, ControlDelay string
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
	fl.StringVar(&o.Step, "step", "1", "seconds between consecutive ops when times come from positions")
	fl.StringVar(&o.TimeGroup, "time-group", "", "take times from this regex group (e.g. date) instead of positions")
	fl.StringVar(&o.TimeLayout, "time-layout", "", "Go time layout of --time-group (default: try common log layouts)")
	fl.IntVar(&o.TickEvery, "tick-every", 0, "add a checkpoint tick after every K events of each process")
	fl.StringVar(&o.TickPeriod, "tick-period", "", "add checkpoint ticks every P seconds (P, or P0,P1,... per process)")
	fl.IntVar(&o.FlushEvery, "flush-every", 0, "add a log flush after every K events of each process")
	fl.StringArrayVar(&o.FailAt, "fail-at", nil, "inject a failure after the N-th event of HOST (HOST:N, repeatable)")
	fl.StringVar(&o.FailMatch, "fail-match", "", "inject a failure after every event whose text matches this regex (e.g. Crashing)")
	fl.StringVar(&o.Down, "down", "", "seconds an injected failure keeps its process down (default: restart_delay)")
	fl.StringVar(&o.RestartDelay, "restart-delay", "", "params.restart_delay written into the trace, in seconds")
	fl.StringVar(&o.ControlDelay, "control-delay", "", "params.control_delay written into the trace, in seconds")
	return c
}

// importOptions turns the flags into shiviz.ImportOptions; errors are
// usage errors.
func (o *importShivizOptions) importOptions() (shiviz.ImportOptions, error) {
	var opt shiviz.ImportOptions
	positive := func(flag, s string) (trace.Time, error) {
		if s == "" {
			return 0, nil
		}
		t, err := gen.ParseSeconds(s)
		if err != nil || t <= 0 {
			return 0, invalidf("--%s %q: want a number of seconds > 0", flag, s)
		}
		return t, nil
	}
	var err error
	if opt.Step, err = positive("step", o.Step); err != nil {
		return opt, err
	}
	if opt.Down, err = positive("down", o.Down); err != nil {
		return opt, err
	}
	if opt.Params.RestartDelay, err = positive("restart-delay", o.RestartDelay); err != nil {
		return opt, err
	}
	if opt.Params.ControlDelay, err = positive("control-delay", o.ControlDelay); err != nil {
		return opt, err
	}
	if o.TickEvery < 0 || o.FlushEvery < 0 {
		return opt, invalidf("--tick-every and --flush-every must be >= 0")
	}
	opt.TickEvery, opt.FlushEvery = o.TickEvery, o.FlushEvery
	if o.TickPeriod != "" {
		if opt.TickPeriod, err = gen.ParseTicks(o.TickPeriod); err != nil {
			return opt, invalidf("--tick-period: %v", err)
		}
		for _, p := range opt.TickPeriod {
			if p <= 0 {
				return opt, invalidf("--tick-period %q: periods must be > 0", o.TickPeriod)
			}
		}
	}
	for _, f := range o.FailAt {
		fp, err := shiviz.ParseFailPoint(f)
		if err != nil {
			return opt, invalid(err)
		}
		opt.FailAt = append(opt.FailAt, fp)
	}
	if o.FailMatch != "" {
		if opt.FailMatch, err = regexp.Compile(o.FailMatch); err != nil {
			return opt, invalidf("--fail-match: %v", err)
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
	var r io.Reader = ios.In
	name := file
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return invalid(err)
		}
		defer f.Close()
		r = f
	}
	log, err := shiviz.Parse(name, r, shiviz.ParseOptions{Regex: o.Regex, Delimiter: o.Delimiter})
	if err != nil {
		return invalid(err)
	}
	wopts := trace.WriteOptions{JSONL: o.JSONL, Gzip: o.Gzip}
	if o.Delimiter == "" {
		ex := log.Executions[0]
		tr, st, err := ex.Trace(name, opts)
		if err != nil {
			return invalid(err)
		}
		o.summary(ios, name, ex, st)
		return writeOutput(o.Output, ios.Out, func(w io.Writer) error {
			return trace.WriteTrace(w, tr, wopts)
		})
	}
	if o.Output == "" || o.Output == "-" {
		return invalidf("import shiviz --delimiter writes one trace per execution: give -o DIR")
	}
	if err := os.MkdirAll(o.Output, 0o755); err != nil {
		return invalid(err)
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
	for i, ex := range log.Executions {
		tr, st, err := ex.Trace(name, opts)
		if err != nil {
			return invalid(err)
		}
		out := filepath.Join(o.Output, fmt.Sprintf("%s-%0*d%s", base, width, i+1, ext))
		o.summary(ios, out, ex, st)
		if err := writeOutput(out, ios.Out, func(w io.Writer) error {
			return trace.WriteTrace(w, tr, wopts)
		}); err != nil {
			return err
		}
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
	fmt.Fprintf(ios.ErrOut, "%s%s: %d processes, %d events, %d messages, %d ticks, %d flushes, %d failures; %d unmatched lines skipped",
		name, label, st.Processes, st.Events, st.Messages, st.Ticks, st.Flushes, st.Fails, ex.Skipped)
	if st.Clamped > 0 {
		fmt.Fprintf(ios.ErrOut, "; %d timestamps raised to keep causal order", st.Clamped)
	}
	fmt.Fprintln(ios.ErrOut)
}
