package cmd

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/diagram"
	"github.com/ckpt-dev/ckpt/output"
	"github.com/ckpt-dev/ckpt/pipeline"
	"github.com/ckpt-dev/ckpt/trace"
)

// diagramFlags are the flags of `ckpt diagram`.
type diagramFlags struct {
	Output    string
	Format    string
	Axis      string
	MaxEvents int
	replayFlags
}

// newDiagramCmd builds `ckpt diagram FILE [--algo ms|pk|both] [-o OUT.svg|OUT.html]`.
func newDiagramCmd(ios *IO) *cobra.Command {
	f := &diagramFlags{}
	c := &cobra.Command{
		Use:   "diagram FILE [--algo " + strings.Join(algoNames(true), "|") + "] [-o OUT.svg|OUT.html]",
		Short: "Space-time diagram of a trace (replayed) or run, as SVG or HTML",
		Long: `diagram draws a space-time diagram of FILE ("-" for stdin): one lane per
process, time to the right, messages as arrows, checkpoints (basic, forced,
recovery), failures with their down time, every rollback as a jump back to
the restored checkpoint, each failure's recovery line, undone events faded,
orphan, lost, discarded, replayed and resent messages in their own styles,
and the checker's violations circled with their witness text.

A trace is replayed through --algo (default ms) and checked first; a run is
drawn as it is, checked against the source trace its header names when
that file can be read. --algo both replays a trace through MS and PK and
draws the two runs one above the other on a shared x axis, with a table
comparing them and the ops one ran a different number of times than the
other outlined (a run file holds one algorithm: both needs a trace).

x is logical order by default (happened-before, as ShiViz draws it; not
a time scale) or, with --axis time, real time to scale; the page can
switch between them.

The format follows the -o extension: .html gives one self-contained page
(lane names and legend that stay in view, zoom and pan, an overview strip
of the whole run, search, lane filters, deep links #seq=N, hover details,
a clickable violation list), .svg (or no extension) an SVG; another
extension is an error unless --format says which to write.
Without -o an SVG goes to stdout. Runs longer than --max-events (default
3000 for an SVG, 250000 for a page, which draws only what is in view) are
windowed: the start and the events around each failure, and the diagram
says so.

Exit status: 0 when the diagram is written (whatever the verdict), 2 for
invalid input or usage.`,
		Args: takesArgs("FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDiagram(ios, f, args[0])
		},
	}
	fl := c.Flags()
	fl.StringVarP(&f.Output, "output", "o", "", "write to this file (atomically); .html for the interactive page")
	fl.StringVar(&f.Format, "format", "", "svg or html (default: from the -o extension, else svg)")
	f.add(fl, algoNames(true), "ms", "algorithm to replay a trace through: "+algorithms.Choice(algoNames(true))+" (both: compared)")
	fl.StringVar(&f.Axis, "axis", diagram.AxisLogical, "x axis: logical (happened-before order) or time (real time, to scale)")
	fl.IntVar(&f.MaxEvents, "max-events", 0, "window runs with more events than this (default 3000 for svg, 250000 for html)")
	return c
}

// diagramFormat checks the flags (usage errors) and decides svg or html
// from --format, else the extension.
func diagramFormat(f *diagramFlags) (string, error) {
	format := strings.ToLower(f.Format)
	switch ext := strings.ToLower(filepath.Ext(f.Output)); {
	case format == "svg" || format == "html":
	case format != "":
		return "", usagef("--format %q: want svg or html", f.Format)
	case ext == ".html" || ext == ".htm":
		format = "html"
	case ext == ".svg" || ext == "":
		format = "svg"
	default:
		// Writing SVG under a .png name would give a file its viewer
		// cannot open: ask instead (--format svg says it is meant).
		return "", usagef("-o %s: diagram writes SVG (.svg) or HTML (.html), not %s; give --format svg to write SVG under this name anyway", f.Output, ext)
	}
	if err := f.check(); err != nil {
		return "", err
	}
	if f.Axis != diagram.AxisLogical && f.Axis != diagram.AxisTime {
		return "", usagef("--axis %q: want logical or time", f.Axis)
	}
	// --max-events' default (0) means the writer's own window; an
	// explicit 0 is an error.
	if f.MaxEvents < 0 || (f.flags.Changed("max-events") && f.MaxEvents < 1) {
		return "", usagef("--max-events %d: want a whole number >= 1", f.MaxEvents)
	}
	return format, nil
}

func runDiagram(ios *IO, f *diagramFlags, path string) error {
	format, err := diagramFormat(f)
	if err != nil {
		return err
	}
	var run *trace.Run
	tr, err := readOne("ckpt diagram", "trace or run", path, func(p string) (tr *trace.Trace, err error) {
		tr, run, err = ios.pipe().ReadAny(p)
		return tr, err
	})
	if err != nil {
		return err
	}
	panels, err := diagramPanels(ios, f, path, tr, run)
	if err != nil {
		return err
	}
	opts := diagram.Options{MaxEvents: f.MaxEvents, Axis: f.Axis}
	err = output.Write(f.Output, ios.Out, func(w io.Writer) error {
		if format == "html" {
			return diagram.HTMLPanels(w, panels, opts)
		}
		return diagram.SVGPanels(w, panels, opts)
	})
	if err != nil {
		return fmt.Errorf("diagram: %w", err)
	}
	return nil
}

// diagramPanels checks a run as it is, or replays a trace through --algo
// and checks every run (pipeline), and returns one panel per run.
func diagramPanels(ios *IO, f *diagramFlags, path string, tr *trace.Trace, run *trace.Run) ([]diagram.Panel, error) {
	if run != nil {
		if f.Algo == "both" {
			return nil, fmt.Errorf("%s: --algo both needs a trace: a run holds one algorithm's replay", path)
		}
		if n := f.ignoredNote(path); n != "" {
			fmt.Fprintf(ios.ErrOut, "ckpt: note: %s\n", n)
		}
		rep, note, err := ios.pipe().Check(run, path)
		if err != nil {
			return nil, err
		}
		if note != "" {
			fmt.Fprintf(ios.ErrOut, "ckpt: note: %s\n", note)
		}
		run.Name = path // the diagram names the file the user gave, as reports do
		return []diagram.Panel{{Run: run, Report: &rep}}, nil
	}
	outs := ios.pipe().Verify(tr, path, pipeline.Options{
		Algorithms: algorithms.Select(f.Algo), Variant: f.Variant, Params: f.Params, KeepRuns: true,
	})
	var panels []diagram.Panel
	for _, o := range outs {
		if o.Report.Error != "" {
			return nil, fmt.Errorf("%s: %s", path, o.Report.Error)
		}
		o.Run.Name = path
		panels = append(panels, diagram.Panel{Run: o.Run, Report: &o.Report})
	}
	return panels, nil
}
