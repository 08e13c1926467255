package gentest

import (
	"slices"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// Mixed draws half of its traces from Trace and half from package gen on
// a Config whose op count is raised to at least a draw from lo–hi (the
// config's own count goes up to 200). Why both: rapid keeps Trace's
// values small (3 in 4 have fewer than 10 events) and shrinks them step
// by step to a handful of events, while violations live in the longer
// executions with overlapping recoveries (or forced checkpoints and
// Z-paths) the config half reaches. A failure shrinks towards the Trace
// half.
func Mixed(lo, hi int) *rapid.Generator[*trace.Trace] {
	return rapid.OneOf(Trace(), rapid.Custom(func(t *rapid.T) *trace.Trace {
		cfg := Config().Draw(t, "config")
		cfg.Events = max(cfg.Events, rapid.IntRange(lo, hi).Draw(t, "min_events"))
		tr, err := gen.Trace(cfg)
		if err != nil {
			t.Fatalf("gen.Trace(%+v): %v", cfg, err)
		}
		return tr
	}))
}

// FailureFree draws g's traces without their fail events, revalidated
// (which rebuilds their message tables).
func FailureFree(g *rapid.Generator[*trace.Trace]) *rapid.Generator[*trace.Trace] {
	return rapid.Custom(func(t *rapid.T) *trace.Trace {
		tr := g.Draw(t, "trace")
		out := &trace.Trace{Name: tr.Name, Processes: tr.Processes, Params: tr.Params, Msgs: tr.Msgs, Labels: slices.Clip(tr.Labels)}
		for i := range tr.Events {
			if tr.Events[i].Kind != trace.Fail {
				out.Events = append(out.Events, tr.Events[i])
			}
		}
		if err := trace.Validate(out); err != nil {
			t.Fatalf("the trace without its failures is invalid: %v", err)
		}
		return out
	})
}
