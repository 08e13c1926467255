package protocoltest

import (
	"cmp"
	"math/rand/v2"
	"slices"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// Classic returns the classic workload of the CIC literature, failure
// free: procs processes on a complete graph, every op a send (receives
// come on arrival), inter-send times exponential with mean mtt seconds,
// message delays exponential with mean mtt/10, and each process's basic
// checkpoints at intervals drawn uniformly from [0.5·ict, 1.5·ict]
// seconds. The ticks are drawn here, seeded, because the generator's are
// periodic.
func Classic(t T, procs, ops int, ict, mtt float64, seed uint64) *trace.Trace {
	t.Helper()
	sec := func(s float64) trace.Time {
		v, ok := trace.FromSeconds(s)
		if !ok {
			t.Fatalf("bad duration %v", s)
		}
		return v
	}
	cfg := gen.DefaultConfig()
	cfg.Procs, cfg.Events, cfg.Seed = procs, ops, seed
	cfg.SendRatio, cfg.FlushEvery, cfg.Ticks = 1, 0, nil
	cfg.OpGap = gen.Dist{Kind: gen.Exp, A: sec(mtt)}
	cfg.Delay = gen.Dist{Kind: gen.Exp, A: sec(mtt / 10)}
	tr, err := gen.Trace(cfg)
	if err != nil {
		t.Fatal(err)
	}
	end := tr.Events[len(tr.Events)-1].T
	rng := rand.New(rand.NewPCG(seed, 0x7469636b))
	var ticks []trace.Event
	for p := range procs {
		for at := trace.Time(0); ; {
			at += sec(ict * (0.5 + rng.Float64()))
			if at > end {
				break
			}
			ticks = append(ticks, trace.Event{T: at, Kind: trace.Checkpoint, P: int32(p), To: trace.None, Msg: trace.None})
		}
	}
	slices.SortStableFunc(ticks, func(a, b trace.Event) int { return cmp.Compare(a.T, b.T) })
	// Merge: at equal times the op comes first.
	out := &trace.Trace{Processes: tr.Processes, Msgs: tr.Msgs}
	i := 0
	for _, e := range tr.Events {
		for i < len(ticks) && ticks[i].T < e.T {
			out.Events = append(out.Events, ticks[i])
			i++
		}
		out.Events = append(out.Events, e)
	}
	out.Events = append(out.Events, ticks[i:]...)
	if err := trace.Validate(out); err != nil {
		t.Fatal(err)
	}
	return out
}
