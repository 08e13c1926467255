package explore

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/ckpt-dev/ckpt/trace"
)

// sched is one schedule to run: failure points of a base trace.
type sched struct {
	ordinal int64
	b       *base
	// vecSeed names a sampled delay vector whose base the worker builds
	// (b is nil then).
	vecSeed uint64
	pts     []int32
	size    int64
}

// batchSize is how many schedules travel to a worker at once: enough to
// make channel traffic negligible next to the replays.
const batchSize = 32

// runAll replays every schedule gen produces on o.Workers workers and
// returns the merged tally.
func (x *explorer) runAll(gen func(emit func(sched) bool), total int64) *tally {
	batches := make(chan []sched, 2*x.o.Workers)
	tallies := make([]*tally, x.o.Workers)
	var done atomic.Int64
	var progMu sync.Mutex
	var wg sync.WaitGroup
	for w := range tallies {
		t := newTally(len(x.engines))
		tallies[w] = t
		wg.Add(1)
		go func() {
			defer wg.Done()
			wk := x.newWorker()
			for batch := range batches {
				for i := range batch {
					wk.run(&batch[i], t)
				}
				if x.o.Progress != nil {
					n := done.Add(int64(len(batch)))
					progMu.Lock()
					x.o.Progress(n, total)
					progMu.Unlock()
				}
			}
		}()
	}
	var batch []sched
	gen(func(s sched) bool {
		batch = append(batch, s)
		if len(batch) == batchSize {
			batches <- batch
			batch = nil
		}
		return true
	})
	if len(batch) > 0 {
		batches <- batch
	}
	close(batches)
	wg.Wait()
	all := newTally(len(x.engines))
	for _, t := range tallies {
		all.merge(t)
	}
	return all
}

// worker holds one goroutine's reusable buffers.
type worker struct {
	x       *explorer
	buf     traceBuf
	v       verdict
	eff     []bool
	until   []trace.Time
	members []int32
	// The last sampled delay vector's base, reused while schedules of
	// the same vector follow each other.
	seed  uint64
	sbase *base
}

func (x *explorer) newWorker() *worker { return &worker{x: x} }

// run replays s through every algorithm and counts it in t.
func (w *worker) run(s *sched, t *tally) {
	if s.b == nil {
		if w.sbase == nil || w.seed != s.vecSeed {
			b, err := w.x.sampledBase(s.vecSeed)
			if err != nil {
				t.fail(s, err)
				return
			}
			w.sbase, w.seed = b, s.vecSeed
		}
		s.b = w.sbase
	}
	tr := s.b.build(s.pts, &w.buf, false)
	w.eff, w.until = effective(tr, w.buf.inj, w.eff, w.until)
	for a, e := range w.x.engines {
		if err := e.run(tr, &w.v); err != nil {
			t.fail(s, fmt.Errorf("schedule %d: %w", s.ordinal, err))
			return
		}
		t.addVerdict(a, s, &w.v, w.buf.inj)
	}
	t.addBaseline(s, w.eff, w.members)
	t.run++
	t.covered += s.size
}

func (t *tally) fail(s *sched, err error) {
	if t.err == nil || s.ordinal < t.errOrd {
		t.err, t.errOrd = err, s.ordinal
	}
}

// effective reports, per injected failure (inj: their fail ordinals),
// whether it takes effect: a fail of a process that is already down is
// ignored (SPEC §3), and so left out of the per-failure figures.
func effective(tr *trace.Trace, inj []int32, eff []bool, until []trace.Time) ([]bool, []trace.Time) {
	eff = eff[:0]
	if len(inj) == 0 {
		return eff, until
	}
	until = until[:0]
	for range tr.Processes {
		until = append(until, -1)
	}
	k, j := int32(0), 0
	for i := range tr.Events {
		ev := &tr.Events[i]
		if ev.Kind != trace.Fail {
			continue
		}
		on := ev.T >= until[ev.P]
		if on {
			down := ev.Down
			if down == 0 {
				down = tr.Params.RestartDelay
			}
			until[ev.P] = ev.T + down
		}
		if j < len(inj) && inj[j] == k {
			eff = append(eff, on)
			j++
		}
		k++
	}
	return eff, until
}
