// Package pipeline takes traces in and gives reports out: it decodes
// traces and runs (read.go), replays a trace through the algorithms of
// the registry (package algorithms) with the consistency checker taking
// each run's events as they become final, checks recorded runs
// (check.go), refuses work whose memory estimate exceeds the cap
// (memory.go), and spreads the work over the cores (Each). ckpt's
// commands map their flags to its options and render what it returns.
package pipeline

import (
	"errors"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/measure"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// Pipeline is what every read, replay and check of one invocation
// shares. The zero value reads stdin from nothing, has no memory cap and
// uses every core.
type Pipeline struct {
	// Mem is the memory cap; nil: none.
	Mem *Cap
	// Stdin is what the path "-" reads.
	Stdin io.Reader
	// OnRead, when set, is told the path of every regular file read (the
	// command line refuses to write an output over one of its inputs).
	OnRead func(path string)
	// Cores is how many goroutines may replay at once; 0: GOMAXPROCS.
	Cores int
	// Trace, when set, is the source trace runs are checked against, in
	// place of the one each run's header names (check --trace: a run
	// moved away from its trace, or replayed from stdin).
	Trace string
}

// Options say how Verify replays and checks a trace.
type Options struct {
	// Algorithms are registry names (algorithms.Select), in report order.
	Algorithms []string
	// Variant applies to the algorithms that have it
	// (algorithms.VariantRule); the others run as they are.
	Variant string
	// Params override the trace's.
	Params trace.Params
	// KeepRuns returns the runs beside the reports; without it each run
	// is garbage once judged.
	KeepRuns bool
	// VerdictsOnly leaves out the report's tables (recoveries, baseline,
	// statistics), which feed no verdict, for a caller that renders only
	// the verdicts (verify -q): measuring them is about 7% of verify's CPU
	// on the 10^6 trace of docs/performance.md.
	VerdictsOnly bool
}

// Outcome is one algorithm's report, and its run with KeepRuns.
type Outcome struct {
	Run    *trace.Run
	Report report.Report
}

// Verify replays tr through every algorithm of o and checks each run
// against tr while it is made; file names the trace in the reports. An
// algorithm whose replay cannot run, or whose estimate exceeds the
// memory cap, gets an error report; the others are reported as usual.
// The algorithms run one after the other, in o's order, each run
// garbage once judged: in parallel their heaps added up, and every page
// first touched costs system time (docs/performance.md: on the 10^6
// trace, verify both took 12% more CPU and 40% more memory in parallel).
func (p *Pipeline) Verify(tr *trace.Trace, file string, o Options) []Outcome {
	out := make([]Outcome, len(o.Algorithms))
	s := replay.SizesOf(tr)
	if !o.KeepRuns {
		s = streamedSizes(tr, s, o.Params)
	}
	var fit []int // the algorithms that fit alone, and their names
	var names []string
	for i, name := range o.Algorithms {
		if err := p.Mem.check(tr.Name, replayEstimate(s, []string{name}, true)); err != nil {
			out[i].Report = report.ErrorReport(file, name, Describe(err))
			continue
		}
		fit, names = append(fit, i), append(names, name)
	}
	if len(fit) == 0 {
		return out
	}
	all := replayEstimate(s, names, true)
	if err := p.Mem.check(tr.Name, all); o.KeepRuns && err != nil {
		for _, i := range fit { // kept, the runs add up
			out[i].Report = report.ErrorReport(file, o.Algorithms[i], Describe(err))
		}
		return out
	}
	// Every report has the trace's baseline: computed once, beside the
	// replays.
	var base *measure.Baseline
	if !o.VerdictsOnly {
		base = measure.StartBaseline(tr)
	}
	var spare []trace.RunEvent // the last run's events, once judged
	for _, i := range fit {
		out[i], spare = verifyOne(tr, file, o.Algorithms[i], o, base, spare)
	}
	return out
}

// verifyOne replays tr through algorithm name and checks the run: the
// checker takes the events the engine has made final on a goroutine of
// its own (checker.go). The run's events are written over spare, a judged
// run's (replay.Options.Spare); without KeepRuns they are returned,
// judged, for the next replay.
func verifyOne(tr *trace.Trace, file, name string, o Options, base *measure.Baseline, spare []trace.RunEvent) (Outcome, []trace.RunEvent) {
	variant := algorithms.VariantFor(name, o.Variant)
	alg, err := algorithms.New(name, variant, tr)
	if err != nil {
		return Outcome{Report: report.ErrorReport(file, name, Describe(err))}, spare
	}
	var c checker
	opts := replay.Options{Params: o.Params, Variant: variant, Spare: spare}
	opts.Stream = func(run *trace.Run, upto int) int {
		taken := c.stream(run, upto, tr)
		if o.KeepRuns {
			return 0 // the caller reads the run's vectors after
		}
		return taken // the checker read each vector as it took it
	}
	run, err := replay.Run(tr, alg, opts)
	s := c.finish(run)
	if err != nil {
		return Outcome{Report: report.ErrorReport(file, name, "replaying through "+name+": "+Describe(Labelled(err, TraceDoc)))}, nil
	}
	var tables report.Report
	r := s.Report(func(m *history.Model) {
		if !o.VerdictsOnly {
			measure.Fill(&tables, m, base)
		}
	})
	r.Recoveries, r.Baseline, r.Stats, r.File = tables.Recoveries, tables.Baseline, tables.Stats, file
	if o.KeepRuns {
		return Outcome{Run: run, Report: r}, nil
	}
	return Outcome{Report: r}, run.Events
}

// Fits refuses (*TooBig) replaying tr through the algorithms names at
// once, and checking the runs when check is set, when the estimate
// exceeds the memory cap.
func (p *Pipeline) Fits(tr *trace.Trace, names []string, check bool) error {
	return p.Mem.check(tr.Name, replayEstimate(replay.SizesOf(tr), names, check))
}

// Each runs one(i) for every i in [0, n) on at most the Pipeline's
// Cores (0: GOMAXPROCS) goroutines at once.
func (p *Pipeline) Each(n int, one func(i int)) {
	workers := p.Cores
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	busy := make(chan struct{}, workers) // a token per goroutine running
	var wg sync.WaitGroup
	for i := range n {
		busy <- struct{}{}
		wg.Go(func() {
			one(i)
			<-busy
		})
	}
	wg.Wait()
}

// Describe is err as one line for a report entry or stderr, without the
// file name (the caller puts it first): an InputError without its File,
// an OS error without the operation and path it repeats.
func Describe(err error) string {
	var ie *trace.InputError
	var pe *os.PathError
	var tb *TooBig
	msg := err.Error()
	switch {
	case errors.As(err, &ie) && error(ie) == err:
		c := *ie
		c.File = ""
		if c.Doc == "" {
			c.Doc = TraceDoc
		}
		msg = c.Error()
	case errors.As(err, &pe) && error(pe) == err:
		msg = OSErrorText(pe)
	case errors.As(err, &tb):
		msg = tb.Msg
	}
	return strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", " ").Replace(msg)
}

// OSErrorText is an OS error in words a user acts on, without the
// operation and path a *os.PathError repeats.
func OSErrorText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "no such file or directory"
	case errors.Is(err, os.ErrPermission):
		return "permission denied"
	case err.Error() == "is a directory":
		return "is a directory, not a file"
	}
	return err.Error()
}
