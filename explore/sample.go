package explore

import (
	"encoding/binary"
	"math/big"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/ckpt-dev/ckpt/trace"
)

// Sampling (docs/explore.md, "Budget and sampling"). A space with more
// classes than the budget is explored by drawing schedules uniformly from
// the whole space — a delay vector, each message's choice uniform; a
// number of failures k with probability proportional to the schedules of
// that size; k distinct points uniformly — and keeping the first Budget
// distinct classes drawn. The recorded trace (no injected failure, no
// delay) always comes first. Draws come from one PCG seeded by Seed, in
// one goroutine, so the sample — and the output — depend on the seed
// only.

// maxDrawFactor bounds the draws at this many times the budget: a space
// barely larger than the budget would otherwise spend long on repeats.
const maxDrawFactor = 20

// sample returns the sampled schedules in sample order (every shard's).
func (x *explorer) sample() ([]sched, error) {
	rng := rand.New(rand.NewPCG(x.o.Seed, 0x6578706c6f7265)) // "explore"
	n := int64(len(x.base0.points))
	weights := sizeWeights(n, x.o.Failures)
	seen := map[string]bool{}
	out := []sched{{ordinal: 0, size: 1}}
	seen[scheduleKey(nil, nil)] = true
	var draws int64
	limit := maxDrawFactor*x.o.Budget + 1000
	for int64(len(out)) < x.o.Budget && draws < limit {
		draws++
		b, seed, digits, err := x.drawBase(rng)
		if err != nil {
			return nil, err
		}
		k := pickSize(rng, weights)
		pts := drawPoints(rng, b, k)
		size := int64(1)
		if !x.o.NoReduce {
			size = b.canonicalize(pts)
		}
		key := scheduleKey(digits, pts)
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, sched{ordinal: int64(len(out)), vec: seed, pts: pts, size: size})
	}
	return out, nil
}

// drawBase draws a delay vector: the base trace for it, the seed that
// regenerates it (0: the recorded delays, base0) and its digits.
func (x *explorer) drawBase(rng *rand.Rand) (*base, uint64, []int32, error) {
	if x.choices == nil {
		return x.base0, 0, nil, nil
	}
	seed := rng.Uint64() | 1
	digits := vectorDigits(seed, x.choices)
	b, err := x.vectorBase(digits)
	if b == x.base0 {
		return b, 0, nil, err
	}
	return b, seed, digits, err
}

// seedBase builds the base of the delay vector drawn from seed (0: the
// recorded delays, base0).
func (x *explorer) seedBase(seed uint64) (*base, error) {
	if seed == 0 {
		return x.base0, nil
	}
	return x.vectorBase(vectorDigits(seed, x.choices))
}

// vectorDigits derives a delay vector from seed: each message's choice
// uniform among its choices.
func vectorDigits(seed uint64, choices [][]trace.Time) []int32 {
	r := rand.New(rand.NewPCG(seed, 0x64656c617973)) // "delays"
	digits := make([]int32, len(choices))
	for m, c := range choices {
		if len(c) > 1 {
			digits[m] = int32(r.IntN(len(c)))
		}
	}
	return digits
}

// vectorBase builds the base of the delay vector digits (base0 for the
// recorded delays).
func (x *explorer) vectorBase(digits []int32) (*base, error) {
	extra := extraOf(digits, x.choices)
	if extra == nil {
		return x.base0, nil
	}
	rt, err := retime(x.tr, extra)
	if err != nil {
		return nil, err
	}
	return newBase(rt, extra), nil
}

// sizeWeights returns the cumulative share of schedules with 0..k
// failures among n points.
func sizeWeights(n int64, k int) []float64 {
	counts := upTo(n, k)
	cum := make([]float64, k+1)
	for i, c := range counts {
		cum[i], _ = new(big.Rat).SetFrac(c, counts[k]).Float64()
	}
	return cum
}

// pickSize draws a number of failures by the cumulative shares cum.
func pickSize(rng *rand.Rand, cum []float64) int {
	u := rng.Float64()
	return min(sort.Search(len(cum), func(i int) bool { return u < cum[i] }), len(cum)-1)
}

// drawPoints draws k distinct points of b uniformly (Floyd's algorithm
// over point IDs, which do not depend on the delays) and returns their
// global indexes, ascending.
func drawPoints(rng *rand.Rand, b *base, k int) []int32 {
	n := len(b.points)
	if k > n {
		k = n
	}
	ids := make([]int32, 0, k)
	for j := n - k; j < n; j++ {
		t := int32(rng.IntN(j + 1))
		if slices.Contains(ids, t) {
			t = int32(j)
		}
		ids = append(ids, t)
	}
	for i, id := range ids {
		ids[i] = b.byID[id]
	}
	slices.Sort(ids)
	return ids
}

// scheduleKey identifies a schedule (delay digits, canonical points) for
// de-duplicating draws. Digits are below 0xff, so the separator keeps
// keys of the recorded delays (no digits) apart from the others.
func scheduleKey(digits []int32, pts []int32) string {
	b := make([]byte, 0, 4*(len(digits)+len(pts))+1)
	for _, d := range digits {
		b = binary.LittleEndian.AppendUint32(b, uint32(d))
	}
	b = append(b, 0xff)
	for _, p := range pts {
		b = binary.LittleEndian.AppendUint32(b, uint32(p))
	}
	return string(b)
}
