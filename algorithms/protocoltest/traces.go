package protocoltest

import (
	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
	"github.com/ckpt-dev/ckpt/trace/gen/gentest"
)

// FailureFree returns tr without its fail events, revalidated (which
// rebuilds its message table).
func FailureFree(tr *trace.Trace) (*trace.Trace, error) {
	out := &trace.Trace{Name: tr.Name, Processes: tr.Processes, Params: tr.Params, Msgs: tr.Msgs}
	for i := range tr.Events {
		if tr.Events[i].Kind != trace.Fail {
			out.Events = append(out.Events, tr.Events[i])
		}
	}
	return out, trace.Validate(out)
}

// Traces draws failure-free traces: half from gentest.Trace (small,
// shrinks well), half from the generator on a gentest config raised to
// 20–120 ops, where forced checkpoints and Z-paths abound.
func Traces() *rapid.Generator[*trace.Trace] {
	return rapid.Custom(func(t *rapid.T) *trace.Trace {
		var tr *trace.Trace
		if rapid.Bool().Draw(t, "small") {
			tr = gentest.Trace().Draw(t, "steps")
		} else {
			cfg := gentest.Config().Draw(t, "config")
			cfg.Events = rapid.IntRange(20, 120).Draw(t, "events")
			cfg.Failures = 0
			var err error
			if tr, err = gen.Trace(cfg); err != nil {
				t.Fatal(err)
			}
		}
		tr, err := FailureFree(tr)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	})
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
