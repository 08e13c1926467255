package explore

import (
	"cmp"
	"context"
	"math/big"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ckpt-dev/ckpt/trace"
)

// explorer is one exploration in progress.
type explorer struct {
	o       Options
	tr      *trace.Trace // prepared: explicit params, fails stripped if asked
	engines []engine
	base0   *base
	// choices are the delay choices per message (nil without Delays).
	choices [][]trace.Time
	scope   Scope
	ctx     context.Context
	// total counts the schedules to run (each), which the workers report
	// progress against as they run.
	total atomic.Int64
}

// countLimit bounds the work spent counting the classes of a space with
// delays (vectors × (events + points)): beyond it the classes are not
// counted and the space is sampled.
const countLimit = 50_000_000

// plan sizes the space and decides between exhaustive and sampled.
func (x *explorer) plan() error {
	s := &x.scope
	k, reduce := x.o.Failures, !x.o.NoReduce
	full, classes := x.base0.spaceSize(k, reduce)
	vectors := big.NewInt(1)
	if x.o.Delays {
		x.choices = delayChoices(x.tr)
		vectors = vectorCount(x.choices)
	}
	s.DelayVectors = vectors
	s.Schedules = new(big.Int).Mul(full, vectors)
	switch {
	case vectors.Cmp(big.NewInt(1)) == 0:
		s.Classes = classes
	case vectors.IsInt64() && vectors.Int64() <= x.o.Budget &&
		vectors.Int64()*int64(len(x.tr.Events)+len(x.base0.points)) <= countLimit:
		// Sum the classes of every delay vector's failure space.
		s.Classes = new(big.Int)
		err := x.eachBase(func(b *base) bool {
			_, c := b.spaceSize(k, reduce)
			s.Classes.Add(s.Classes, c)
			return true
		})
		if err != nil {
			return err
		}
	}
	if s.Classes != nil {
		s.Merged = new(big.Int).Sub(s.Schedules, s.Classes)
	}
	s.Mode = Sampled
	if s.Classes != nil && s.Classes.IsInt64() && s.Classes.Int64() <= x.o.Budget {
		s.Mode = Exhaustive
	}
	return nil
}

// eachBase calls f with the base of every delay vector in index order
// (just base0 without delays), until f returns false.
func (x *explorer) eachBase(f func(b *base) bool) error {
	if !f(x.base0) || x.choices == nil {
		return nil
	}
	for vec := uint64(1); vec < x.scope.DelayVectors.Uint64(); vec++ {
		b, err := x.vectorBase(indexDigits(vec, x.choices))
		if err != nil || !f(b) {
			return err
		}
	}
	return nil
}

// each calls f with every delay vector's base, in order, and this
// shard's part of the schedules the plan chose of it, sorted by
// ordinal, until f returns false. The whole space is enumerated vector
// by vector (its canonical schedules), each base built once and only
// this shard's schedules kept, so that a shard of a big space holds its
// part alone; a sample is drawn whole (it is the budget's size) and
// grouped by vector. total is called first with the shard's count.
func (x *explorer) each(total func(n int64), f func(b *base, list []sched) bool) error {
	if x.scope.Mode == Sampled {
		return x.eachSampled(total, f)
	}
	sh := x.o.Shard
	total(sh.of(x.scope.Classes.Int64()))
	var ordinal int64
	return x.eachBase(func(b *base) bool {
		var list []sched
		b.each(x.o.Failures, !x.o.NoReduce, func(pts []int32, size int64) bool {
			if sh.has(ordinal) {
				list = append(list, sched{ordinal: ordinal, pts: slices.Clone(pts), size: size})
			}
			ordinal++
			return true
		})
		return f(b, list)
	})
}

// eachSampled is each for a sampled plan.
func (x *explorer) eachSampled(total func(n int64), f func(b *base, list []sched) bool) error {
	list, err := x.sample()
	if err != nil {
		return err
	}
	list = slices.DeleteFunc(list, func(s sched) bool { return !x.o.Shard.has(s.ordinal) })
	total(int64(len(list)))
	slices.SortStableFunc(list, func(a, b sched) int { return cmp.Compare(a.vec, b.vec) })
	for len(list) > 0 {
		j := 1
		for j < len(list) && list[j].vec == list[0].vec {
			j++
		}
		b, err := x.seedBase(list[0].vec)
		if err != nil || !f(b, list[:j]) {
			return err
		}
		list = list[j:]
	}
	return nil
}

// explore runs this shard's part of the schedules the plan chose on
// o.Workers workers, each base's schedules cut into tasks, and returns
// their tally, or the error of the plan or else of the earliest schedule
// that could not run. It stops early, with the schedules done so far,
// when the context is done.
func (x *explorer) explore() (*tally, error) {
	tasks := make(chan []sched, x.o.Workers)
	t := newTally(x)
	var wg sync.WaitGroup
	for range x.o.Workers {
		wg.Go(func() {
			w := &worker{x: x, bufs: make([]traceBuf, x.o.Failures+2)}
			for tk := range tasks {
				if x.ctx.Err() == nil {
					w.run(tk, t)
				}
			}
		})
	}
	err := x.each(x.total.Store, func(b *base, list []sched) bool {
		return x.tasks(b, list, tasks)
	})
	close(tasks)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	return t, t.err
}

// tasks sorts the schedules of one base b by their points, marks the
// points whose baselines they read (base.needs), and cuts them into the
// workers' tasks: whole subtrees of the prefix tree (every
// schedule with the same first point), so that they share the replays
// of their prefixes (run.go), of about an eighth of a worker's share of
// the work each. A schedule costs about the replay after its last
// failure point, and a task the replay up to its first.
func (x *explorer) tasks(b *base, list []sched, tasks chan<- []sched) bool {
	slices.SortFunc(list, func(a, c sched) int { return slices.Compare(a.pts, c.pts) })
	events := int64(len(x.tr.Events))
	cost := func(s *sched) int64 {
		if len(s.pts) == 0 {
			return events + 1
		}
		return events - int64(b.points[s.pts[len(s.pts)-1]].Gap) + 1
	}
	var total int64
	b.need = make([]bool, len(b.points))
	for i := range list {
		list[i].b = b
		total += cost(&list[i])
		b.needs(&list[i])
	}
	target := max(total/int64(8*x.o.Workers), 1)
	for len(list) > 0 {
		j, w := 0, int64(0)
		for j < len(list) && (w < target || (len(list[j].pts) > 0 && len(list[j-1].pts) > 0 && list[j].pts[0] == list[j-1].pts[0])) {
			w += cost(&list[j])
			j++
		}
		tasks <- list[:j:j]
		if x.ctx.Err() != nil {
			return false
		}
		list = list[j:]
	}
	return true
}
