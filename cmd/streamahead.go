package cmd

import (
	"sync"
	"sync/atomic"

	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/trace"
)

// streamAhead feeds a replay's run to the checker (consistency.Stream) on
// a goroutine of its own, so that a replay with a core to spare builds the
// checker's model beside it instead of between its steps (perf: the
// stream is about a tenth of a PK replay at 10^7 events).
//
// The engine appends to its run while the checker reads it. The checker
// therefore reads its own copy of the run's header (snap), which the
// hand-over replaces: the copied slices end at the events handed over,
// and what they hold never changes again (replay.Options.Stream), except
// the vectors the engine lets go, which it does only once the checker
// has taken the events that carry them (taken, which stream returns).
type streamAhead struct {
	src  *trace.Trace
	base *consistency.Baseline
	s    *consistency.Stream
	snap trace.Run
	// run is the engine's run; upto the events it has made final, sent
	// the events handed over.
	run        *trace.Run
	upto, sent int
	work       chan handOver
	pending    sync.WaitGroup // hand-overs not yet taken
	taken      atomic.Int64   // events the checker has taken
	exited     chan struct{}
	// pf populates the run's pages ahead of the engine, also on the
	// spare core; nil where it cannot.
	pf *prefault
}

// handOver is a copy of the run's header, whose events up to upto are
// final.
type handOver struct {
	run  trace.Run
	upto int
}

// streamBatch is how many events the engine makes before they are handed
// over: one hand-over per step would cost more than the checker's work.
const streamBatch = 1 << 13

func newStreamAhead(src *trace.Trace, base *consistency.Baseline) *streamAhead {
	return &streamAhead{src: src, base: base, work: make(chan handOver, 4), exited: make(chan struct{})}
}

// stream is replay.Options.Stream.
func (a *streamAhead) stream(run *trace.Run, upto int) int {
	if a.s == nil {
		a.run, a.snap = run, *run
		a.s = consistency.NewStream(&a.snap, a.src, cap(run.Events))
		a.s.ShareBaseline(a.base)
		go a.take()
		a.pf = startPrefault()
	}
	a.upto = upto
	if upto-a.sent >= streamBatch {
		a.handOver()
	}
	return int(a.taken.Load())
}

func (a *streamAhead) handOver() {
	a.pf.ahead(a.run.Events, a.upto)
	a.pending.Add(1)
	a.work <- handOver{run: *a.run, upto: a.upto}
	a.sent = a.upto
}

// take is the checker's goroutine.
func (a *streamAhead) take() {
	defer close(a.exited)
	fed := 0
	for h := range a.work {
		a.snap = h.run
		for ; fed < h.upto; fed++ {
			a.s.Add(&a.snap.Events[fed])
		}
		a.taken.Store(int64(fed))
		a.pending.Done()
	}
}

// finish hands over the finished run (nil if the replay failed), stops
// the checker's goroutine and returns the stream, nil if the replay never
// started one.
func (a *streamAhead) finish(run *trace.Run) *consistency.Stream {
	if a.s == nil {
		return nil
	}
	a.pf.stop()
	a.pf = nil
	if run != nil {
		a.run, a.upto = run, len(run.Events)
		a.handOver()
	}
	close(a.work)
	<-a.exited
	return a.s
}
