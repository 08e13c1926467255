package pipeline

import (
	"sync/atomic"

	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/trace"
)

// checker feeds a replay's run to the consistency checker on a goroutine
// of its own, so that the checker builds its model on the second core
// while the engine goes on (issue 29: verify's wall time).
//
// The engine appends to its run while the checker reads it, so the
// checker reads its own copy of the run's header (snap), replaced at each
// hand-over: the copy's slices end at what the engine has made final, and
// what they hold never changes again (replay.Options.Stream), except the
// vectors the engine drops once the checker has taken their events. A
// token's receipt set may be a view of the algorithm's live state
// (trace.ReceiptSet): the engine waits until the checker has taken it.
type checker struct {
	s     *consistency.Stream
	snap  trace.Run
	work  chan handOver
	taken atomic.Int64
	// sent is what the engine has handed over, seen what it has looked
	// at for views, fed what the checker has taken.
	sent, seen, fed int
	// caught tells the engine waiting at a view that the checker took it.
	// The engine then owns the checker (own) while views come closer
	// than a batch apart (lastView the latest): a wait per view made the
	// round trips cost more than the checker's work (issue 17's 10^5
	// failures, a token hop every few events: 48% more CPU).
	caught   chan struct{}
	own      bool
	lastView int
	done     chan struct{}
}

// handOver is a copy of the run's header whose events are final; with
// wait, the engine waits until the checker took them.
type handOver struct {
	run  trace.Run
	wait bool
}

// checkBatch is how many events the engine makes between hand-overs: a
// hand-over per step costs more than the checker's work, and a bigger
// batch makes the engine wait longer at a token.
const checkBatch = 1 << 10

// stream is replay.Options.Stream, on the engine's goroutine.
func (c *checker) stream(run *trace.Run, upto int, src *trace.Trace) int {
	if c.work == nil {
		// The checker starts its model on its own goroutine too. The
		// engine runs at most 4 hand-overs ahead: the vectors of events
		// not yet taken stay in the run, and are read cold (PK at 4,096
		// processes, 128 ahead: 31.4 s CPU, 2,071 MB; 4: 27.8 s, 2,033
		// MB; c8db948 28.2 s, 2,091 MB, load 8-10).
		c.snap = *run
		c.work, c.caught, c.done = make(chan handOver, 4), make(chan struct{}), make(chan struct{})
		go c.take(src, cap(run.Events))
	}
	live := liveView(run, c.seen, upto)
	c.seen = upto
	switch {
	case c.own:
		// The checker's goroutine is idle: the engine feeds it itself
		// until a batch of events passes without a view.
		c.snap = *run
		c.feed()
		if live {
			c.lastView = upto
		}
		if c.own = upto-c.lastView < checkBatch; !c.own {
			c.sent = upto
		}
	case live:
		c.handOver(run, upto, true)
		<-c.caught
		c.own, c.lastView = true, upto
	case upto-c.sent >= checkBatch:
		c.handOver(run, upto, false)
	}
	return int(c.taken.Load())
}

// feed adds the events of snap not yet taken, on whichever goroutine
// owns the checker.
func (c *checker) feed() {
	for ; c.fed < len(c.snap.Events); c.fed++ {
		c.s.Add(&c.snap.Events[c.fed])
	}
	c.taken.Store(int64(c.fed))
}

// liveView reports whether an event of run in [from, upto) carries a
// receipt set the algorithm may still write. The checker reads such a
// set again after the event: at the hop's resends and forward
// (consistency's tokenLists, resentAll). That is safe because PK emits a
// hop's receipt, resends and forward in one step, so they reach the
// checker in the hand-over the engine waits on (or the one it feeds
// itself in own mode) before PK's log moves on; an algorithm that spread
// them over steps would need its views flagged too.
func liveView(run *trace.Run, from, upto int) bool {
	for i := from; i < upto; i++ {
		if b := run.Body(&run.Events[i]); b != nil && b.Receipts != nil {
			return true
		}
	}
	return false
}

func (c *checker) handOver(run *trace.Run, upto int, wait bool) {
	h := handOver{run: *run, wait: wait}
	h.run.Events = run.Events[:upto]
	c.work <- h
	c.sent = upto
}

// take is the checker's goroutine.
func (c *checker) take(src *trace.Trace, sizeHint int) {
	defer close(c.done)
	c.s = consistency.NewStream(&c.snap, src, sizeHint)
	for h := range c.work {
		c.snap = h.run
		c.feed()
		if h.wait {
			c.caught <- struct{}{}
		}
	}
}

// finish hands over the finished run (nil if the replay failed), stops
// the checker's goroutine and returns the stream.
func (c *checker) finish(run *trace.Run) *consistency.Stream {
	if c.work == nil {
		return nil
	}
	if run != nil {
		c.handOver(run, len(run.Events), false)
	}
	close(c.work)
	<-c.done
	return c.s
}
