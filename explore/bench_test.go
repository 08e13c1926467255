//go:build unix

package explore

import (
	"bytes"
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

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

// BenchmarkExploreScale runs issue 30's workloads on traces of `ckpt gen
// --procs 4 --seed 5 --events OPS` (failure-free: gen's default),
// exhaustively, through both algorithms on one worker; docs/explore.md
// quotes its schedules/s per core: 300 ops (360 events) with K=2, 1,000
// ops (1,193 events) and 8,000 ops (9,587 events) with K=1. Run with
// -benchtime 1x: the last takes tens of seconds.
func BenchmarkExploreScale(b *testing.B) {
	for _, w := range []struct{ ops, k int }{{300, 2}, {1000, 1}, {8000, 1}} {
		b.Run(fmt.Sprintf("ops=%d/K%d", w.ops, w.k), func(b *testing.B) {
			c := gen.DefaultConfig()
			c.Procs, c.Events, c.Seed = 4, w.ops, 5
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

// benchExplore explores tr with K=k on one worker and reports the
// schedules per second of wall time and per second of the process's CPU
// time (user+sys, every thread: the collector's included), the figure a
// loaded machine does not distort.
func benchExplore(b *testing.B, tr *trace.Trace, k int) {
	var run int64
	cpu0 := cpuTime(b)
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
	b.ReportMetric(float64(run)/(cpuTime(b)-cpu0).Seconds(), "schedules/cpu-s")
}

// cpuTime is the process's CPU time so far, user and system.
func cpuTime(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
