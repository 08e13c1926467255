package protocoltest

import (
	"testing"

	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// Large returns a failure-free generated trace of about ops ops over 16
// processes on a complete graph, with exponential delays and op gaps of
// mean 1 s and tick periods of 20, 25 and 30 s cycled over the
// processes: the benchmarks' workload.
func Large(t T, ops int) *trace.Trace {
	t.Helper()
	cfg := gen.DefaultConfig()
	cfg.Procs, cfg.Events, cfg.FlushEvery = 16, ops, 0
	cfg.Ticks = []trace.Time{20 * trace.Second, 25 * trace.Second, 30 * trace.Second}
	tr, err := gen.Trace(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// BenchReplay measures replaying a Large trace of ops ops through a fresh
// state machine from mk, reporting ns per trace event.
func BenchReplay(b *testing.B, mk New, ops int) {
	tr := Large(b, ops)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		a, err := mk(tr)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := replay.Run(tr, a, replay.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(tr.Events)), "ns/event")
}
