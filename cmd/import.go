package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/output"
	"github.com/ckpt-dev/ckpt/pipeline"
	"github.com/ckpt-dev/ckpt/record"
	"github.com/ckpt-dev/ckpt/trace/codec"
	"github.com/ckpt-dev/ckpt/trace/foreign"
	"github.com/ckpt-dev/ckpt/trace/gen"
	"github.com/ckpt-dev/ckpt/trace/shiviz"
)

// importOptions are the flags of `ckpt import` and `ckpt import shiviz`.
type importOptions struct {
	// command and takes name the command and its files in messages.
	command, takes string
	From           string
	parse          shiviz.ParseOptions
	Output         string
	JSONL, Gzip    bool
	Quiet          bool
	// opts takes the flags that need no parsing; importOptions adds
	// the others.
	opts       shiviz.ImportOptions
	TickPeriod string
	FailAt     []string
	FailMatch  string
}

const importLong = `Read logs of real systems — ShiViz and GoVector logs, DistributedClocks
tracing records, OpenTelemetry (OTLP JSON), Jaeger or Zipkin (v2 JSON) spans —
and write an execution trace. The format of each FILE is told from its first
bytes (--from forces it); several files of one log (GoVector writes one per
process, span exporters one per service) are merged into one execution.

ShiViz and GoVector logs are cut into events by a regular expression (named
groups host, clock and event; other named groups become part of the label):
--regex, else the one on the log's first line, else the layout detected —
the event's text before or after its "HOST {CLOCK}" line — which the summary
names. Messages are inferred from the vector clocks as ShiViz does. Spans
become events on their service's process; a parent and child span on two
processes become a request and, for a synchronous call, a response, and each
process's clock is shifted by the least amount that puts every receive after
its send. The summary on stderr says what was decided, repaired or skipped.

Times are the events' positions (--step apart), or come from the spans, or
from a timestamp group (--time-group). Checkpoint ticks, flushes and failures
can be added for recovery analysis. With --delimiter the log holds several
executions and -o names a directory that receives one trace per execution,
NAME-1.json, NAME-2.json, ...

Recordings written by ckpt's recorder (package record, one file per
process) are merged by causality into the trace the program executed
and, when they record a protocol's actions, the run: -o DIR receives
DIR/trace.json and DIR/run.json, which ckpt check judges.`

// newImportCmd builds `ckpt import FILE...` and, for the ShiViz format
// forced, its subcommand `ckpt import shiviz FILE...`.
func newImportCmd(ios *IO) *cobra.Command {
	o := &importOptions{command: "ckpt import", takes: "log or span file"}
	c := &cobra.Command{
		Use:   "import [flags] FILE...",
		Short: "Convert logs and spans of real systems into execution traces",
		Long:  importLong,
		Args:  takesArgs("FILE..."),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runImport(ios, o, args)
		},
	}
	importFlags(c, o)
	c.Flags().StringVar(&o.From, "from", "", "the files' format, one of "+strings.Join(foreign.Formats, ", ")+" (default: told from each file)")
	so := &importOptions{command: "ckpt import shiviz", takes: "ShiViz log", From: foreign.ShiViz}
	sc := &cobra.Command{
		Use:   "shiviz [flags] FILE...",
		Short: "Convert ShiViz / GoVector vector-clock logs into a ckpt/trace@1 trace",
		Long:  "ckpt import --from shiviz FILE...: see ckpt import --help.",
		Args:  takesArgs("FILE..."),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runImport(ios, so, args)
		},
	}
	importFlags(sc, so)
	c.AddCommand(sc)
	return c
}

func importFlags(c *cobra.Command, o *importOptions) {
	fl := c.Flags()
	fl.StringVar(&o.parse.Regex, "regex", "", "parser regular expression of ShiViz logs (default: the log's first line if it is one, else the layout detected)")
	fl.Var(value[string]{p: &o.parse.Delimiter, typ: "string", parse: func(s string) (string, error) {
		if s == "" {
			return "", errors.New("want a regular expression separating executions, not an empty one")
		}
		return s, nil
	}}, "delimiter", "regular expression separating executions (its group \"trace\" labels them)")
	fl.BoolVar(&o.parse.Lenient, "lenient", false, "repair clocks that forget what their host knew (each repair is reported)")
	fl.StringVarP(&o.Output, "output", "o", "", "output file (a directory with --delimiter); default stdout")
	fl.BoolVar(&o.JSONL, "jsonl", false, "write JSON Lines")
	fl.BoolVar(&o.Gzip, "gzip", false, "gzip the output")
	fl.BoolVarP(&o.Quiet, "quiet", "q", false, "do not print the summary on stderr")
	o.opts.Step = shiviz.DefaultStep
	fl.Var(secondsFlag(&o.opts.Step, true), "step", "seconds between consecutive ops when times come from positions")
	fl.StringVar(&o.opts.TimeGroup, "time-group", "", "take times from this regex group (e.g. date) instead of positions")
	fl.StringVar(&o.opts.TimeLayout, "time-layout", "", "Go time layout of --time-group (default: try common log layouts)")
	fl.Var(intFlag(&o.opts.TickEvery, 0), "tick-every", "add a checkpoint tick after every K events of each process")
	fl.StringVar(&o.TickPeriod, "tick-period", "", "add checkpoint ticks every P seconds (P, or P0,P1,... per process)")
	fl.Var(intFlag(&o.opts.FlushEvery, 0), "flush-every", "add a log flush after every K events of each process")
	fl.StringArrayVar(&o.FailAt, "fail-at", nil, "inject a failure after the N-th event of HOST (HOST:N, repeatable)")
	fl.StringVar(&o.FailMatch, "fail-match", "", "inject a failure after every event whose text matches this regex (e.g. Crashing)")
	fl.Var(secondsFlag(&o.opts.Down, true), "down", "seconds an injected failure keeps its process down (default: restart_delay)")
	fl.Var(secondsFlag(&o.opts.Params.RestartDelay, true), "restart-delay", "params.restart_delay written into the trace, in seconds")
	fl.Var(secondsFlag(&o.opts.Params.ControlDelay, true), "control-delay", "params.control_delay written into the trace, in seconds")
}

// importOptions turns the flags into shiviz.ImportOptions; errors are
// usage errors.
func (o *importOptions) importOptions() (shiviz.ImportOptions, error) {
	opt := o.opts
	var err error
	if o.From != "" && !slices.Contains(foreign.Formats, o.From) {
		return opt, usagef("--from %s: want one of %s", o.From, strings.Join(foreign.Formats, ", "))
	}
	if slices.Contains([]string{"host", "clock", "event"}, opt.TimeGroup) {
		return opt, usagef("--time-group %s: host, clock and event are the groups of the event itself; give the group holding its timestamp", opt.TimeGroup)
	}
	if o.TickPeriod != "" {
		opt.TickPeriod, err = gen.ParseTicks(o.TickPeriod)
		if err != nil || slices.Contains(opt.TickPeriod, 0) {
			return opt, usagef("--tick-period %s: want a number of seconds > 0, or a comma list of them (one per process)", o.TickPeriod)
		}
	}
	for _, f := range o.FailAt {
		fp, err := shiviz.ParseFailPoint(f)
		if err != nil {
			return opt, flagError{err}
		}
		opt.FailAt = append(opt.FailAt, fp)
	}
	if o.FailMatch != "" {
		if opt.FailMatch, err = regexp.Compile(o.FailMatch); err != nil {
			return opt, usagef("--fail-match %s: not a regular expression: %v", o.FailMatch, err)
		}
	}
	return opt, nil
}

func runImport(ios *IO, o *importOptions, args []string) error {
	opts, err := o.importOptions()
	if err != nil {
		return err
	}
	if o.parse.Delimiter != "" && (o.Output == "" || o.Output == "-") {
		return usagef("import --delimiter writes one trace per execution: give -o DIR")
	}
	if err := ios.pipe().FitsImport(args); err != nil {
		return err
	}
	if o.From == "" && record.Recordings(args, peekStdin(ios, args)) {
		return o.importRecordings(ios, args)
	}
	files, closeAll, err := openImports(ios, o, args)
	defer closeAll()
	if err != nil {
		return err
	}
	// Stdin, which FitsImport cannot count ahead, is counted as read.
	over := func() error { return nil }
	if i := slices.Index(args, "-"); i >= 0 {
		files[i].R, over = ios.pipe().MeterImport("standard input", files[i].R)
	}
	log, err := foreign.Read(files, foreign.Options{From: o.From, Parse: o.parse})
	if tooBig := over(); tooBig != nil {
		return tooBig
	}
	if err != nil {
		return err
	}
	wopts := codec.WriteOptions{JSONL: o.JSONL, Gzip: o.Gzip}
	if o.parse.Delimiter == "" {
		if wopts, err = traceWriteOptions(o.Output, o.JSONL, o.Gzip); err != nil {
			return err
		}
	}
	name := strings.Join(log.Files, ", ")
	traces, stats, err := log.Traces(name, opts)
	if err != nil {
		return err
	}
	// The summary follows the write: when writing fails, its error is
	// the one line printed.
	if o.parse.Delimiter == "" {
		if err := output.Write(o.Output, ios.Out, func(w io.Writer) error { return codec.WriteTrace(w, traces[0], wopts) }); err != nil {
			return err
		}
		o.summary(ios, name, log, log.Executions[0], stats[0])
		return nil
	}
	if err := output.MakeDir(o.Output); err != nil {
		return err
	}
	for i, ex := range log.Executions {
		out := filepath.Join(o.Output, executionFile(args[0], i, len(traces), wopts))
		if err := output.Write(out, ios.Out, func(w io.Writer) error { return codec.WriteTrace(w, traces[i], wopts) }); err != nil {
			return err
		}
		o.summary(ios, out, log, ex, stats[i])
	}
	return nil
}

// executionFile names the i-th of n executions of the log file in the
// -o directory of import --delimiter: NAME-1.json, NAME-2.json, ...
// (NAME-01.json from ten on; stdin is "stdin").
func executionFile(file string, i, n int, wo codec.WriteOptions) string {
	base := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	if file == "-" {
		base = "stdin"
	}
	ext := ".json"
	if wo.JSONL {
		ext = ".jsonl"
	}
	if wo.Gzip {
		ext += ".gz"
	}
	return fmt.Sprintf("%s-%0*d%s", base, len(fmt.Sprint(n)), i+1, ext)
}

// openImports opens the files to import ("-" is stdin, once).
func openImports(ios *IO, o *importOptions, args []string) ([]foreign.File, func(), error) {
	var files []foreign.File
	var opened []*os.File
	closeAll := func() {
		for _, f := range opened {
			f.Close()
		}
	}
	for _, file := range args {
		if file == "-" {
			if slices.Contains(args[:len(files)], "-") {
				return nil, closeAll, usagef("standard input (-) can be read once")
			}
			r, err := codec.OpenInput(ios.pipe().OpenStdin())
			if err != nil {
				return nil, closeAll, fmt.Errorf("standard input: %v", err)
			}
			files = append(files, foreign.File{Name: "-", R: r})
			continue
		}
		if err := dirError(o.command, o.takes, file); err != nil {
			return nil, closeAll, fmt.Errorf("%s: %v", file, err)
		}
		output.Reading(file)
		f, err := os.Open(file)
		if err != nil {
			return nil, closeAll, fmt.Errorf("%s: %s", file, pipeline.OSErrorText(err))
		}
		opened = append(opened, f)
		r, err := codec.OpenInput(f)
		if err != nil {
			return nil, closeAll, fmt.Errorf("%s: %v", file, err)
		}
		files = append(files, foreign.File{Name: file, R: r})
	}
	return files, closeAll, nil
}

// summary prints, on stderr, a line of counts and then, indented, how
// the log was read and every note of the import.
func (o *importOptions) summary(ios *IO, name string, log *shiviz.Log, ex *shiviz.Execution, st shiviz.Stats) {
	if o.Quiet {
		return
	}
	label := ""
	if ex.Label != "" {
		label = fmt.Sprintf(" (execution %q)", ex.Label)
	}
	fmt.Fprintf(ios.ErrOut, "%s%s: %s", name, label, statsLine(st))
	if ex.Skipped > 0 {
		fmt.Fprintf(ios.ErrOut, "; %s skipped", pipeline.Plural(ex.Skipped, "unmatched line", "unmatched lines"))
	}
	fmt.Fprintf(ios.ErrOut, "\n  read as %s\n", log.Layout)
	for _, n := range append(ex.Notes, st.Unplaced...) {
		fmt.Fprintf(ios.ErrOut, "  %s\n", n)
	}
}

// statsLine is the counts an import's summary starts with.
func statsLine(st shiviz.Stats) string {
	return fmt.Sprintf("%s, %s, %s, %s", counts(st.Processes, st.Events, st.Messages), pipeline.Plural(st.Ticks, "tick", "ticks"),
		pipeline.Plural(st.Flushes, "flush", "flushes"), pipeline.Plural(st.Fails, "failure", "failures"))
}
