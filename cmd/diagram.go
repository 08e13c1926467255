package cmd

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/consistency/diagram"
	"github.com/ckpt-dev/ckpt/consistency/report"
	"github.com/ckpt-dev/ckpt/replay"
)

// diagramFlags are the flags of `ckpt diagram`.
type diagramFlags struct {
	Output    string
	Format    string
	Algo      string
	Variant   string
	MaxEvents int
	// delays holds --restart-delay and --control-delay, shared with the
	// report commands so they are validated alike.
	delays reportFlags
}

// newDiagramCmd builds `ckpt diagram FILE [--algo ms|pk] [-o OUT.svg|OUT.html]`.
func newDiagramCmd(ios *IO) *cobra.Command {
	f := &diagramFlags{}
	c := &cobra.Command{
		Use:   "diagram FILE [--algo " + strings.Join(algorithms.AllNames, "|") + "] [-o OUT.svg|OUT.html]",
		Short: "Space-time diagram of a trace (replayed) or run, as SVG or HTML",
		Long: `diagram draws a space-time diagram of FILE ("-" for stdin): one lane per
process, time to the right, messages as arrows, checkpoints (basic, forced,
recovery), failures with their down time, every rollback as a jump back to
the restored checkpoint, each failure's recovery line, undone events faded,
orphan, lost, discarded, replayed and resent messages in their own styles,
and the checker's violations circled with their witness text.

A trace is replayed through --algo (default ms) and checked first; a run is
drawn as it is, checked against the source trace its header names when
that file can be read.

The format follows the -o extension: .html gives one self-contained page
(hover details, zoom and pan, a clickable violation list), .svg (or no
extension) an SVG; another extension is an error unless --format says
which to write. Without -o an SVG goes to stdout. Runs
longer than --max-events are windowed: the start and the events around
each failure, and the page says so.

Exit status: 0 when the diagram is written (whatever the verdict), 2 for
invalid input or usage.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDiagram(ios, f, args[0])
		},
	}
	fl := c.Flags()
	fl.StringVarP(&f.Output, "output", "o", "", "write to this file (atomically); .html for the interactive page")
	fl.StringVar(&f.Format, "format", "", "svg or html (default: from the -o extension, else svg)")
	fl.StringVar(&f.Algo, "algo", "ms", "algorithm to replay a trace through: "+algorithms.Choice(algoNames(false)))
	fl.StringVar(&f.Variant, "variant", "", variantHelp())
	addDelayFlags(fl, &f.delays)
	f.MaxEvents = diagram.DefaultMaxEvents
	fl.Var(intFlag{&f.MaxEvents, 1}, "max-events", "window runs with more events than this")
	return c
}

// diagramFormat decides svg or html from --format, else the extension.
func diagramFormat(f *diagramFlags) (string, error) {
	switch strings.ToLower(f.Format) {
	case "svg", "html":
		return strings.ToLower(f.Format), nil
	case "":
	default:
		return "", invalidf("--format %q: want svg or html", f.Format)
	}
	switch ext := strings.ToLower(filepath.Ext(f.Output)); ext {
	case ".html", ".htm":
		return "html", nil
	case ".svg", "":
		return "svg", nil
	default:
		// Writing SVG under a .png name would give a file its viewer
		// cannot open: ask instead (--format svg says it is meant).
		return "", invalidf("-o %s: diagram writes SVG (.svg) or HTML (.html), not %s; give --format svg to write SVG under this name anyway", f.Output, ext)
	}
}

func runDiagram(ios *IO, f *diagramFlags, path string) error {
	format, err := diagramFormat(f)
	if err != nil {
		return err
	}
	if !slices.Contains(algorithms.AllNames, f.Algo) {
		return invalidf("--algo %q: want %s", f.Algo, algorithms.Choice(algoNames(false)))
	}
	if err := checkVariant(f.Variant, f.Algo); err != nil {
		return invalid(err)
	}
	params, err := f.delays.params()
	if err != nil {
		return err
	}
	tr, run, err := readAny(ios, path)
	if err != nil {
		return invalid(err)
	}
	var rep report.Report
	if run != nil {
		src, note := reportSource(run, path)
		rep = consistency.Check(run, src)
		if note != "" {
			noteSource(&rep, note)
			fmt.Fprintf(ios.ErrOut, "ckpt: note: %s: %s: equivalence is unknown\n", path, note)
		}
	} else {
		alg, err := algorithms.New(f.Algo, f.Variant, tr)
		if err != nil {
			return invalid(err)
		}
		run, err = replay.Run(tr, alg, replay.Options{Params: params, Variant: f.Variant})
		if err != nil {
			return invalidf("%s: replaying through %s: %s", path, f.Algo, describe(labelled(err, traceDoc)))
		}
		rep = consistency.Check(run, tr)
	}
	// The diagram names the file the user gave, as reports do.
	run.Name, rep.File = path, path
	opts := diagram.Options{MaxEvents: f.MaxEvents}
	err = writeOutput(f.Output, ios.Out, func(w io.Writer) error {
		if format == "html" {
			return diagram.HTML(w, run, &rep, opts)
		}
		return diagram.SVG(w, run, &rep, opts)
	})
	if err != nil {
		return invalid(fmt.Errorf("diagram: %w", err))
	}
	return nil
}
