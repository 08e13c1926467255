// Package diagram draws a run as a space-time diagram (issues 9 and 18):
// one lane per process, time to the right, messages as arrows,
// checkpoints, failures, rollbacks and recovery lines, with the checker's
// violations highlighted. It writes a standalone SVG or a self-contained
// HTML page that renders the same model in the browser (sticky lane
// names, semantic zoom, an overview strip, search, lane filters, deep
// links, and MS and PK side by side), using only the standard library
// and embedded assets.
//
// Output is deterministic: the same run and report give the same bytes.
package diagram

import (
	"fmt"
	"slices"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// Defaults of Options.
const (
	// DefaultMaxEvents is the run size above which the SVG windows: past
	// a few thousand marks a static drawing is neither readable nor quick
	// to render.
	DefaultMaxEvents = 3000
	// DefaultPageMaxEvents is the run size above which the HTML page
	// windows. The page draws only what is in view, so it holds far
	// more: 10^5 events open in well under a second (docs/diagram.md).
	DefaultPageMaxEvents = 250_000
	// aroundFailure is how many events are kept either side of each
	// failure's recovery when windowing (fewer when many failures share
	// the window).
	aroundFailure = 60
)

// Axis modes: what x means.
const (
	// AxisLogical places events in happened-before order: each event one
	// column right of the previous one on its lane and of the send it
	// receives (Lamport's clock, as ShiViz draws). Not a time scale.
	AxisLogical = "logical"
	// AxisTime places events at their real time, to scale; events at the
	// same instant on one lane are spread a few pixels apart.
	AxisTime = "time"
)

// Options tune a diagram. The zero value is ready to use.
type Options struct {
	// MaxEvents is the largest run drawn whole; a larger run is windowed.
	// 0 means DefaultMaxEvents for SVG, DefaultPageMaxEvents for HTML.
	MaxEvents int
	// Axis is AxisLogical (the default) or AxisTime: the SVG's x axis and
	// the page's initial one (the page can switch).
	Axis string
}

// Message styles: how a copy ended. Each has its own colour, dash and
// legend entry; the names are the CSS classes msg-<name>.
const (
	styleNormal    = "normal"    // delivered from the network
	styleOrphan    = "orphan"    // its send was undone while received, or discarded as an orphan
	styleLost      = "lost"      // never consumed, or a receive blocked on it forever
	styleDiscarded = "discarded" // discarded as stale or duplicate
	styleReplayed  = "replayed"  // delivered again from the message log
	styleResent    = "resent"    // a re-transmission (PK resend)
)

// arrow is one message copy from its send to the event that consumed,
// discarded or left it. A lost arrow (a receive blocked forever) ends at
// the blocked end event; its from is None when no copy was ever sent.
type arrow struct {
	from, to int32
	style    string
	undone   bool
	msg      int32
}

// ctlArrow is one control message (MS Rollback request, PK token).
type ctlArrow struct{ from, to int32 }

// interval is a span of one lane between two events: down time (from
// the fail event), holds.
type interval struct {
	p        int32
	from, to int32
}

// jump is a rollback or restart going back to the restored checkpoint.
type jump struct {
	ev   int32 // restart or rollback event
	ckpt int32 // checkpoint event, or None for the initial checkpoint
}

// linePoint is one process's place on a recovery line: a checkpoint
// event, the initial checkpoint (ev None), or — when the process neither
// rolled back nor took a recovery checkpoint — where it handled the
// failure (kept true).
type linePoint struct {
	p    int32
	ev   int32
	kept bool
}

// rline is the recovery line of one failure.
type rline struct {
	fail   int32
	points []linePoint
}

// gap is a stretch of the run a windowed diagram leaves out: the events
// before drawn event `before` (None: at the end) back to the previous
// drawn one.
type gap struct {
	before  int32
	omitted int
	t0, t1  trace.Time
	x0, x1  float64 // where the SVG draws its band
	// shift is the time (s) the time axis removes up to the gap's end.
	shift float64
}

// model is everything the writers draw, computed once from the run.
type model struct {
	run  *trace.Run
	rep  *report.Report
	opts Options
	// h is the checker's history model of the run, as built.
	h *history.Builder

	n     int
	drawn []bool
	shown int // how many events are drawn
	// implicit marks the processes whose initial checkpoint the run does
	// not write itself (foreign runs may): the diagram draws it at
	// column 0.
	implicit []bool
	// discarded marks checkpoints a later restore threw away.
	discarded []bool
	// logged is the index of the log event of a recv, or None.
	logged []int32
	// dep is the event on another lane an event must follow (the send of
	// the copy it takes, the control_send it receives), or None.
	dep []int32
	x   []float64

	arrows    []arrow
	lost      []arrow // receives blocked forever
	ctl       []ctlArrow
	down      []interval
	holds     []interval
	jumps     []jump
	lines     []rline
	gaps      []gap
	violSeqs  [][]int32
	violOf    []report.Violation
	hidden    int // arrows with an end outside the window
	windowed  bool
	failures  int
	failShown int

	// notes are the comparison's differences: a line added to some
	// events' details, and an outline on their marks.
	notes map[int32]string

	geo geometry
}

// build checks run enough never to index out of range and computes the
// model. rep may be nil. maxEvents is the writer's default window.
func build(run *trace.Run, rep *report.Report, opts Options, maxEvents int) (*model, error) {
	if opts.MaxEvents <= 0 {
		opts.MaxEvents = maxEvents
	}
	if opts.Axis != AxisTime {
		opts.Axis = AxisLogical
	}
	if err := checkRun(run); err != nil {
		return nil, err
	}
	n := len(run.Events)
	m := &model{
		run: run, rep: rep, opts: opts, n: n,
		drawn:     make([]bool, n),
		discarded: make([]bool, n),
		logged:    fill(n, trace.None),
		dep:       fill(n, trace.None),
		x:         make([]float64, n),
		implicit:  make([]bool, len(run.Processes)),
	}
	m.history()
	m.window(opts.MaxEvents)
	m.connect()
	m.violations()
	return m, nil
}

// checkRun rejects what would make the model index out of range.
func checkRun(run *trace.Run) error {
	if run == nil {
		return fmt.Errorf("diagram: no run")
	}
	if len(run.Processes) == 0 {
		return fmt.Errorf("%s: run has no processes", run.Name)
	}
	np := int32(len(run.Processes))
	for i := range run.Events {
		e := &run.Events[i]
		if e.P < 0 || e.P >= np {
			return fmt.Errorf("%s: event %d: process index %d out of range", run.Name, i, e.P)
		}
		if i > 0 && e.T < run.Events[i-1].T {
			return fmt.Errorf("%s: event %d: t %s is before the previous event's t %s", run.Name, i, e.T, run.Events[i-1].T)
		}
	}
	return nil
}

func fill(n int, v int32) []int32 { return slices.Repeat([]int32{v}, n) }

// slotted reports whether an event gets a mark of its own on its lane.
// The others (log, control messages, unhold) are drawn at, or attached
// to, the mark before them.
func slotted(k trace.Kind) bool {
	switch k {
	case trace.Log, trace.ControlSend, trace.ControlRecv, trace.Unhold:
		return false
	}
	return true
}

// violations collects the report's failed properties' witnesses in report
// order, keeping the seqs that name drawn events.
func (m *model) violations() {
	if m.rep == nil {
		return
	}
	for _, p := range m.rep.Properties {
		for _, v := range p.Violations {
			var seqs []int32
			for _, s := range v.Seqs {
				if s >= 0 && int(s) < m.n && m.drawn[s] {
					seqs = append(seqs, s)
				}
			}
			m.violOf = append(m.violOf, v)
			m.violSeqs = append(m.violSeqs, seqs)
		}
	}
}
