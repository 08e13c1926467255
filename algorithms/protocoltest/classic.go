package protocoltest

import (
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

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
