package history

import (
	"reflect"
	"slices"
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// TestShiftTables: a clone's source tables, shifted from its original's
// over the events inserted at any index, are those read from its source.
func TestShiftTables(t *testing.T) {
	c := gen.DefaultConfig()
	c.Seed, c.Procs, c.Events, c.Failures = 3, 3, 80, 2
	src, err := gen.Trace(c)
	if err != nil {
		t.Fatal(err)
	}
	np := len(src.Processes)
	m := &Model{Src: src}
	m.srcOps, m.srcTicks, m.srcFails = srcTables(src, np, nil, 0)
	for at := 0; at <= len(src.Events); at++ {
		for _, ins := range [][]trace.Event{nil, {{Kind: trace.Fail, P: 1}}, {{Kind: trace.Fail, P: 2}, {Kind: trace.Checkpoint, P: 0}}} {
			tr := *src
			tr.Events = slices.Insert(slices.Clone(src.Events), at, ins...)
			ops, ticks, fails := srcTables(&tr, np, m, at)
			wo, wt, wf := srcTables(&tr, np, nil, 0)
			if !reflect.DeepEqual([][][]int32{ops, ticks, fails}, [][][]int32{wo, wt, wf}) {
				t.Fatalf("%d events inserted at %d: shifted %v %v %v, read %v %v %v", len(ins), at, ops, ticks, fails, wo, wt, wf)
			}
		}
	}
}
