package explore

import (
	"math/big"

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
		total, err := x.countDelayed(k, reduce)
		if err != nil {
			return err
		}
		s.Classes = total
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

// countDelayed sums the classes of every delay vector's failure space.
func (x *explorer) countDelayed(k int, reduce bool) (*big.Int, error) {
	total := new(big.Int)
	err := x.eachBase(func(b *base) bool {
		_, c := b.spaceSize(k, reduce)
		total.Add(total, c)
		return true
	})
	return total, err
}

// eachBase calls f with the base of every delay vector in order (just
// base0 without delays).
func (x *explorer) eachBase(f func(b *base) bool) error {
	if !f(x.base0) || x.choices == nil {
		return nil
	}
	digits := make([]int32, len(x.choices))
	for nextVector(digits, x.choices) {
		extra := extraOf(digits, x.choices)
		rt, err := retime(x.tr, extra)
		if err != nil {
			return err
		}
		if !f(newBase(rt, extra)) {
			return nil
		}
	}
	return nil
}

// exhaustive generates every canonical schedule of the space in order,
// numbering them, and emits this shard's.
func (x *explorer) exhaustive(emit func(sched) bool) error {
	k, reduce := x.o.Failures, !x.o.NoReduce
	ord := int64(0)
	return x.eachBase(func(b *base) bool {
		return b.each(k, reduce, func(pts []int32, size int64) bool {
			o := ord
			ord++
			if !x.o.Shard.has(o) {
				return true
			}
			return emit(sched{ordinal: o, b: b, pts: append([]int32(nil), pts...), size: size})
		})
	})
}

// shardCount is how many of n ordinals (0..n-1) the shard holds.
func shardCount(s Shard, n int64) int64 {
	if s.Count <= 1 {
		return n
	}
	c := int64(s.Count)
	return (n - int64(s.Index) + c - 1) / c
}
