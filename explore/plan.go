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
		err := x.eachBase(func(b *base, _ uint64) bool {
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

// eachBase calls f with the base of every delay vector in order, and
// the vector's index (just base0, index 0, without delays), until f
// returns false.
func (x *explorer) eachBase(f func(b *base, vec uint64) bool) error {
	if !f(x.base0, 0) || x.choices == nil {
		return nil
	}
	for vec := uint64(1); vec < x.scope.DelayVectors.Uint64(); vec++ {
		b, err := x.vectorBase(indexDigits(vec, x.choices))
		if err != nil || !f(b, vec) {
			return err
		}
	}
	return nil
}

// digits returns the delay vector vec names: 0 the recorded delays;
// otherwise the vector's index in the space when the plan explores it
// whole (eachBase), the seed it is drawn from when it samples
// (vectorDigits).
func (x *explorer) digits(vec uint64) []int32 {
	switch {
	case vec == 0:
		return nil
	case x.scope.Mode == Sampled:
		return vectorDigits(vec, x.choices)
	}
	return indexDigits(vec, x.choices)
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
	return x.eachBase(func(b *base, vec uint64) bool {
		var list []sched
		b.each(x.o.Failures, !x.o.NoReduce, func(pts []int32, size int64) bool {
			if sh.has(ordinal) {
				list = append(list, sched{ordinal: ordinal, vec: vec, pts: slices.Clone(pts), size: size})
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
		b, err := x.vectorBase(x.digits(list[0].vec))
		if err != nil || !f(b, list[:j]) {
			return err
		}
		list = list[j:]
	}
	return nil
}

// explore runs this shard's part of the schedules the plan chose and
// returns their tally, each base's schedules cut into tasks.
func (x *explorer) explore() (*tally, error) {
	return x.runAll(func(emit func(task) bool) error {
		return x.each(x.total.Store, func(b *base, list []sched) bool {
			return x.tasks(b, list, emit)
		})
	})
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
