package explore

import (
	"context"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"
)

// BenchmarkExplore measures schedules per second per core on a small
// trace (49 events, 4 processes; testdata/small.json) through both
// algorithms, one worker, reduction on: the figure docs/explore.md
// quotes. Shrinking is not involved (the default algorithms find
// nothing).
func BenchmarkExplore(b *testing.B) {
	tr, err := codec.ReadTraceFile("testdata/small.json")
	if err != nil {
		b.Fatal(err)
	}
	for _, k := range []int{1, 2} {
		b.Run(map[int]string{1: "K1", 2: "K2"}[k], func(b *testing.B) {
			var run int64
			for b.Loop() {
				r, err := Run(context.Background(), tr, Options{Failures: k, Workers: 1})
				if err != nil {
					b.Fatal(err)
				}
				if !r.Valid {
					b.Fatal("small.json fails")
				}
				run += r.Scope.Run
			}
			b.ReportMetric(float64(run)/b.Elapsed().Seconds(), "schedules/s")
		})
	}
}
