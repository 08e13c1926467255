package zgraph

import (
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// BenchmarkCheck1M checks the failure-free pattern of a generated trace
// of 10^6 ops over 16 processes whose ticks are its checkpoints (not
// RDT: thousands of violations to find and report).
func BenchmarkCheck1M(b *testing.B) {
	cfg := gen.DefaultConfig()
	cfg.Procs, cfg.Events, cfg.FlushEvery = 16, 1_000_000, 0
	cfg.Ticks = []trace.Time{20 * trace.Second, 25 * trace.Second, 30 * trace.Second}
	tr, err := gen.Trace(cfg)
	if err != nil {
		b.Fatal(err)
	}
	ckpts, msgs := fromTrace(tr)
	b.ReportAllocs()
	b.ResetTimer()
	var v []RDTViolation
	for b.Loop() {
		if v, err = CheckRDT(ckpts, msgs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(msgs)), "ns/msg")
	b.ReportMetric(float64(len(v)), "violations")
}
