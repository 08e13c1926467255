package explore

import (
	"context"
	"math"
	"testing"

	"pgregory.net/rapid"
)

// TestWorstExtraIsTheMaximum: the workers measure a schedule's extra
// rollback only where it may lead the worst case (tally.extraFloor), yet
// the worst case is the one measuring every schedule finds: the same
// value, first reached by the same schedule.
func TestWorstExtraIsTheMaximum(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		tr := smallTraces().Draw(rt, "trace")
		k := rapid.IntRange(1, 2).Draw(rt, "k")
		res, err := Run(context.Background(), tr, Options{Failures: k, NoReduce: true, Workers: 2})
		if err != nil {
			rt.Fatal(err)
		}
		prep := prepared(rt, tr, false)
		b := newBase(prep, nil)
		for a, name := range []string{"ms", "pk"} {
			e, err := newEngine(nil, name, "", prep)
			if err != nil {
				rt.Fatal(err)
			}
			best, first, ordinal := math.MinInt, int64(-1), int64(0)
			b.each(k, false, func(pts []int32, _ int64) bool {
				var buf traceBuf
				var v verdict
				j, err := e.start(b.build(pts, &buf, false))
				if err == nil {
					err = j.finish(&v, buf.inj, math.MinInt)
				}
				if err != nil {
					rt.Fatalf("schedule %v: %v", pts, err)
				}
				for _, r := range v.recs {
					if r.found && r.extra > best {
						best, first = r.extra, ordinal
					}
				}
				ordinal++
				return true
			})
			w := res.Algorithms[a].Worst.Extra
			if first < 0 {
				if w.Schedule != nil {
					rt.Fatalf("%s: worst extra %d at schedule %d, but no failure recovers", name, w.Value, w.Schedule.Ordinal)
				}
				continue
			}
			if w.Schedule == nil || w.Value != best || w.Schedule.Ordinal != first {
				rt.Fatalf("%s: worst extra %+v, want %d first at schedule %d", name, w, best, first)
			}
		}
	})
}
