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
	// done counts the schedules run, of total; progMu serializes
	// Options.Progress.
	done, total atomic.Int64
	progMu      sync.Mutex
}

// step counts one more schedule run.
func (x *explorer) step() {
	n := x.done.Add(1)
	if x.o.Progress != nil {
		x.progMu.Lock()
		x.o.Progress(n, x.total.Load())
		x.progMu.Unlock()
	}
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

// eachBase calls f with the base of every delay vector in order (just
// base0 without delays).
func (x *explorer) eachBase(f func(b *base) bool) error {
	if !f(x.base0) || x.choices == nil {
		return nil
	}
	digits := make([]int32, len(x.choices))
	for nextVector(digits, x.choices) {
		b, err := x.vectorBase(digits)
		if err != nil {
			return err
		}
		if !f(b) {
			return nil
		}
	}
	return nil
}

// exhaustive generates every canonical schedule of the space in order,
// numbering them, and emits this shard's as tasks, base by base.
func (x *explorer) exhaustive(emit func(task) bool) error {
	k, reduce := x.o.Failures, !x.o.NoReduce
	ord := int64(0)
	return x.eachBase(func(b *base) bool {
		var list []sched
		b.each(k, reduce, func(pts []int32, size int64) bool {
			if x.o.Shard.has(ord) {
				list = append(list, sched{ordinal: ord, b: b, pts: slices.Clone(pts), size: size})
			}
			ord++
			return true
		})
		return x.tasks(b, list, emit)
	})
}

// sampled emits this shard's part of the sample as tasks, grouped by
// delay vector, building each vector's base in turn.
func (x *explorer) sampled(list []sched, emit func(task) bool) error {
	var mine []sched
	for _, s := range list {
		if x.o.Shard.has(s.ordinal) {
			mine = append(mine, s)
		}
	}
	slices.SortStableFunc(mine, func(a, b sched) int { return cmp.Compare(a.vecSeed, b.vecSeed) })
	for len(mine) > 0 {
		j := 1
		for j < len(mine) && mine[j].vecSeed == mine[0].vecSeed {
			j++
		}
		b := mine[0].b
		if b == nil {
			var err error
			if b, err = x.vectorBase(vectorDigits(mine[0].vecSeed, x.choices)); err != nil {
				return err
			}
		}
		if !x.tasks(b, mine[:j], emit) {
			return nil
		}
		mine = mine[j:]
	}
	return nil
}

// task is what one worker runs at once: schedules of base b sorted by
// their points, whole subtrees of the prefix tree (every schedule with
// the same first point), so that they share the replays of their
// prefixes (run.go).
type task struct {
	b      *base
	scheds []sched
}

// tasks sorts the schedules of one base by their points and cuts them
// into tasks of about an eighth of a worker's share of the work each:
// a schedule costs about the replay after its last failure point, and a
// task the replay up to its first.
func (x *explorer) tasks(b *base, list []sched, emit func(task) bool) bool {
	slices.SortFunc(list, func(a, c sched) int { return slices.Compare(a.pts, c.pts) })
	events := int64(len(x.tr.Events))
	cost := func(s *sched) int64 {
		if len(s.pts) == 0 {
			return events + 1
		}
		return events - int64(b.points[s.pts[len(s.pts)-1]].Gap) + 1
	}
	var total int64
	for i := range list {
		total += cost(&list[i])
	}
	target := max(total/int64(8*x.o.Workers), 1)
	for len(list) > 0 {
		j, w := 0, int64(0)
		for j < len(list) && (w < target || (len(list[j].pts) > 0 && len(list[j-1].pts) > 0 && list[j].pts[0] == list[j-1].pts[0])) {
			w += cost(&list[j])
			j++
		}
		if !emit(task{b: b, scheds: list[:j:j]}) {
			return false
		}
		list = list[j:]
	}
	return true
}

// shardCount is how many of n ordinals (0..n-1) the shard holds.
func shardCount(s Shard, n int64) int64 {
	if s.Count <= 1 {
		return n
	}
	c := int64(s.Count)
	return (n - int64(s.Index) + c - 1) / c
}
