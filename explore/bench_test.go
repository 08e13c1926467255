package explore

import (
	"bytes"
	"context"
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/codec"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// BenchmarkExplore measures schedules per second per core on a small
// trace (49 events, 4 processes; testdata/small.json) through both
// algorithms, one worker, reduction on. Shrinking is not involved (the
// default algorithms find nothing).
func BenchmarkExplore(b *testing.B) {
	tr, err := codec.ReadTraceFile("testdata/small.json")
	if err != nil {
		b.Fatal(err)
	}
	for _, k := range []int{1, 2} {
		b.Run(map[int]string{1: "K1", 2: "K2"}[k], func(b *testing.B) { benchExplore(b, tr, k) })
	}
}

// BenchmarkExploreScale runs issue 30's two workloads, the figures
// docs/explore.md quotes (schedules/s per core, one worker):
// `ckpt gen --procs 4 --events 300 --seed 5` (360 events) explored exhaustively with K=2, and `ckpt gen --procs 4
// --events 8000 --failures 0 --seed 5` (9,587 events) with K=1. Run with
// -benchtime 1x: the second takes tens of seconds.
func BenchmarkExploreScale(b *testing.B) {
	for _, w := range []struct {
		name          string
		events, fails int
		k             int
	}{{"events=300/K2", 300, -1, 2}, {"events=8000/K1", 8000, 0, 1}} {
		b.Run(w.name, func(b *testing.B) {
			c := gen.DefaultConfig()
			c.Procs, c.Events, c.Seed = 4, w.events, 5
			var buf bytes.Buffer
			if _, err := gen.Write(&buf, c, codec.WriteOptions{}); err != nil {
				b.Fatal(err)
			}
			tr, err := codec.ReadTrace("gen.json", &buf)
			if err != nil {
				b.Fatal(err)
			}
			benchExplore(b, tr, w.k)
		})
	}
}

func benchExplore(b *testing.B, tr *trace.Trace, k int) {
	var run int64
	for b.Loop() {
		r, err := Run(context.Background(), tr, Options{Failures: k, Workers: 1})
		if err != nil {
			b.Fatal(err)
		}
		if !r.Valid {
			b.Fatal(tr.Name, "fails")
		}
		run += r.Scope.Run
	}
	b.ReportMetric(float64(run)/b.Elapsed().Seconds(), "schedules/s")
}
