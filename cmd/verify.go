package cmd

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// newVerifyCmd builds `ckpt verify [flags] FILE...`.
func newVerifyCmd(ios *IO) *cobra.Command {
	f := &reportFlags{}
	c := &cobra.Command{
		Use:   "verify [flags] FILE...",
		Short: "Replay traces through ms and/or pk and check every recovery",
		Long: `verify replays each execution trace (ckpt/trace@1) through --algo ms, pk
or both (the default) and runs the consistency checker on every run: are
the recovery lines orphan-free, is nothing lost or delivered twice, do the
logging and replay rules hold, is there no domino effect, ... "-" reads
stdin; a directory means every trace in it, in name order (what else it
holds is skipped, saying so on stderr). Files are verified in parallel;
reports keep the order of the arguments. A file that cannot be read is
reported as an error in the output, beside the others, and on stderr.

Exit status: 0 every property holds; 1 a property fails, or nothing
could be checked (verdict unknown; with --strict, any unknown property);
2 a file is invalid (every other file is still reported), or usage.`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVerify(ios, f, args)
		},
	}
	addReportFlags(c, f, algoNames(true))
	return c
}

func runVerify(ios *IO, f *reportFlags, args []string) error {
	if err := f.validate(); err != nil {
		return err
	}
	params, err := f.params()
	if err != nil {
		return err
	}
	inputs, err := expandInputs(ios.ErrOut, args, trace.TraceFormat)
	if err != nil {
		return err
	}
	prog := newProgress(ios.ErrOut, len(inputs))
	spare := len(inputs) < runtime.NumCPU()
	reports, lines := checkFiles(inputs, prog, func(path string) fileResult {
		tr, err := readTrace(ios, path)
		if err != nil {
			return fileResult{err: err}
		}
		return fileResult{reports: verifyTrace(ios, tr, path, f, params, spare)}
	})
	return finishReports(ios, f, reports, lines, false)
}

// verifyTrace replays tr through every algorithm the flags select and
// checks each run against tr. An algorithm whose replay cannot run, or
// would need more memory than the cap allows, gets an error entry; the
// others are reported as usual. With spare cores (spare) and memory to
// spare for all of them at once (fitsParallel), the algorithms run in
// parallel: each replay and check is independent, and the reports keep
// the flags' order.
func verifyTrace(ios *IO, tr *trace.Trace, path string, f *reportFlags, params trace.Params, spare bool) []report.Report {
	names := f.algorithms()
	out := make([]report.Report, len(names))
	var run []int // indexes of the algorithms that fit
	sizes := lazySizes(tr, params)
	for i, name := range names {
		if err := ios.checkReplaySized(tr.Name, sizes, []string{name}, streamed); err != nil {
			out[i] = report.ErrorReport(path, name, describe(err))
			continue
		}
		run = append(run, i)
	}
	if len(run) == 0 {
		return out
	}
	// Every algorithm's report has the trace's baseline: computed once,
	// beside the first replay.
	base := consistency.StartBaseline(tr)
	fitting := make([]string, len(run))
	for k, i := range run {
		fitting[k] = names[i]
	}
	if spare && len(run) > 1 && len(tr.Events) >= parallelTrace && ios.fitsParallel(sizes, fitting) {
		// The largest replay also has its checker on a goroutine of its
		// own: once the others finish, their cores would idle while it
		// runs on (10^6 events, verify both: PK's replay outlasts MS's by
		// half; median wall 1.98 -> 1.84 s).
		longest := biggestFirst(sizes, len(tr.Events), names, run)[0]
		var wg sync.WaitGroup
		for _, i := range run {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ahead := i == longest && len(tr.Events) >= bigTrace
				out[i] = verifyOne(tr, path, names[i], f.variantFor(names[i]), params, base, ahead)
			}()
		}
		wg.Wait()
		return out
	}
	// One algorithm at a time, a spare core builds the checker's model
	// beside the replay (streamAhead), for traces big enough to pay for
	// the goroutine.
	ahead := spare && len(tr.Events) >= bigTrace
	for k, i := range biggestFirst(sizes, len(tr.Events), names, run) {
		out[i] = verifyOne(tr, path, names[i], f.variantFor(names[i]), params, base, ahead)
		if len(tr.Events) >= bigTrace && k+1 < len(run) {
			// The next run is built while this one is garbage: without a
			// collection now, the heap target set while it was live lets
			// the next grow on top of it (verify --algo both on 10^6
			// events: 940 MB -> 740 MB peak RSS, docs/performance.md).
			// A collection, not FreeOSMemory: the freed pages stay mapped
			// and the next run reuses them, where pages handed back to
			// the OS are faulted in again, which on a virtual machine
			// costs about a second of system time per gigabyte (10^7
			// events: 9-12 s -> 6 s system, 2.05M -> 1.41M page faults,
			// peak RSS unchanged).
			runtime.GC()
		}
	}
	return out
}

// biggestFirst orders the algorithms run (indexes into names) by their
// estimated memory, largest first: one after the other, each finished
// algorithm's report stays live while the next runs, so the largest run
// should have the fewest beside it (verify both on 10^5 failures: PK
// first peaks ~5% lower). Reports keep the flags' order.
func biggestFirst(sizes func() traceSizes, events int, names []string, run []int) []int {
	if len(run) < 2 || events < bigTrace {
		return run
	}
	s := sizes()
	size := make(map[int]int64, len(run))
	for _, i := range run {
		size[i], _ = s.replayBytes(names[i], streamed)
	}
	order := slices.Clone(run)
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(size[b], size[a]) })
	return order
}

// parallelTrace is the size from which verify runs algorithms in
// parallel: below it a replay takes milliseconds, less than starting
// goroutines and sharing the caches costs.
const parallelTrace = 1 << 14

// verifyOne replays tr through one algorithm and checks the run, whose
// report takes tr's baseline from base; with ahead, the checker takes the
// run on a goroutine of its own.
func verifyOne(tr *trace.Trace, path, name, variant string, params trace.Params, base *consistency.Baseline, ahead bool) report.Report {
	alg, err := algorithms.New(name, variant, tr)
	if err != nil {
		return report.ErrorReport(path, name, describe(err))
	}
	// The checker judges the run while the replay makes it, each event
	// taken as soon as it is final (replay.Options.Stream), and the
	// engine lets go of each vector time once it is taken and nothing can
	// read it again: verify writes no run.
	opts := replay.Options{Params: params, Variant: variant}
	var s *consistency.Stream
	var a *streamAhead
	if ahead {
		a = newStreamAhead(tr, base)
		opts.Stream = a.stream
	} else {
		fed := 0
		opts.Stream = func(run *trace.Run, upto int) int {
			if s == nil {
				s = consistency.NewStream(run, tr, cap(run.Events))
				s.ShareBaseline(base)
			}
			for ; fed < upto; fed++ {
				s.Add(&run.Events[fed])
			}
			return fed
		}
	}
	run, err := replay.Run(tr, alg, opts)
	if a != nil {
		s = a.finish(run)
	}
	if err != nil {
		return report.ErrorReport(path, name, "replaying through "+name+": "+describe(labelled(err, traceDoc)))
	}
	r := s.Report()
	s = nil
	r.File = path
	return r
}

// bigTrace is the size from which verify collects garbage between runs:
// below it a run is small and the collection not worth its cost.
const bigTrace = 1 << 17

// progress is the "verified k/n files" line verify keeps on stderr while
// it works through several files. It is drawn only on a terminal: on a
// pipe or in a file it would be noise mixed into captured diagnostics.
// A nil *progress draws nothing.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	n     int
	k     int
	width int // of the last line drawn, to blank it at the end
}

// newProgress returns a progress line for n files on w, or nil when there
// is a single file (nothing to count) or w is not a terminal.
func newProgress(w io.Writer, n int) *progress {
	if n < 2 || !isTerminal(w) {
		return nil
	}
	p := &progress{w: w, n: n}
	p.draw()
	return p
}

// isTerminal reports whether w is a character device (a terminal), by
// the file's mode: no dependency beyond os.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// done counts one more file and redraws the line.
func (p *progress) done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.k++
	p.draw()
}

// draw writes the line over the previous one; the caller holds mu (or is
// the constructor).
func (p *progress) draw() {
	const barWidth = 30
	filled := barWidth * p.k / p.n
	line := fmt.Sprintf("verify [%s%s] %d/%d files", strings.Repeat("=", filled), strings.Repeat(" ", barWidth-filled), p.k, p.n)
	p.width = len(line)
	fmt.Fprintf(p.w, "\r%s", line)
}

// finish blanks the line so that the reports and messages that follow
// start on a clean line.
func (p *progress) finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
}
