package protocoltest

import (
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// TestClassic: every op is a send or its receipt, and every process's
// basic checkpoint intervals lie in [0.5·ICT, 1.5·ICT].
func TestClassic(t *testing.T) {
	tr := Classic(t, 5, 500, 4, 1, 7)
	last := make([]trace.Time, len(tr.Processes))
	ticks := 0
	for i := range tr.Events {
		e := &tr.Events[i]
		switch e.Kind {
		case trace.Checkpoint:
			if d := e.T - last[e.P]; d < 2*trace.Second || d > 6*trace.Second {
				t.Fatalf("event %d: basic interval %v outside [2, 6] s", i, d)
			}
			last[e.P] = e.T
			ticks++
		case trace.Internal:
			t.Fatalf("event %d: internal op in the classic workload", i)
		}
	}
	if ticks < 5 {
		t.Fatalf("only %d ticks", ticks)
	}
}

// Classic returns a trace of the classic workload (gen.Classic): procs
// processes, ops ops, basic checkpoint intervals uniform on [ict/2,
// 3·ict/2] seconds, mean inter-send time mtt seconds.
func Classic(t T, procs, ops int, ict, mtt float64, seed uint64) *trace.Trace {
	t.Helper()
	i, ok1 := trace.FromSeconds(ict)
	m, ok2 := trace.FromSeconds(mtt)
	if !ok1 || !ok2 {
		t.Fatalf("bad ict %v or mtt %v", ict, mtt)
	}
	tr, err := gen.Trace(gen.Classic(procs, ops, i, m, seed))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}
