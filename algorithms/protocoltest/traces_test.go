package protocoltest

import (
	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
	"github.com/ckpt-dev/ckpt/trace/gen/gentest"
)

// Traces draws failure-free traces: gentest.Mixed, its generated half
// raised to at least 20–120 ops, where forced checkpoints and Z-paths
// abound, without the fail events.
func Traces() *rapid.Generator[*trace.Trace] {
	return gentest.FailureFree(gentest.Mixed(20, 120))
}

// Workload returns a failure-free generated trace: procs processes on a
// complete graph, ops ops, exponential delays and op gaps with mean 1 s,
// P_i ticking every ticks[i mod len(ticks)] seconds.
func Workload(t T, procs, ops int, ticks []float64, seed uint64) *trace.Trace {
	t.Helper()
	cfg := gen.DefaultConfig()
	cfg.Procs, cfg.Events, cfg.Seed = procs, ops, seed
	cfg.FlushEvery = 0
	cfg.Ticks = nil
	for _, s := range ticks {
		tt, ok := trace.FromSeconds(s)
		if !ok {
			t.Fatalf("bad tick %v", s)
		}
		cfg.Ticks = append(cfg.Ticks, tt)
	}
	tr, err := gen.Trace(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}
