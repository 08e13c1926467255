package consistency_test

import (
	"reflect"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen/gentest"
)

// TestVectorsDroppedAfterAdd: the checker reads a PK vector only while
// Stream.Add takes the event that carries it, so a producer may drop
// every vector once its event is added. A copy of a PK run streamed with
// each piggyback's and each checkpoint's vector set to nil right after
// Add gets the report Check gives the intact run — with the source
// trace (the spec then drops what only a recovery reads once the trace
// has no failure left) and without.
func TestVectorsDroppedAfterAdd(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tr := gentest.Trace().Draw(t, "trace")
		run := replayed(t, "pk", tr)
		for _, src := range []*trace.Trace{tr, nil} {
			want := consistency.Check(run, src)
			c := unshared(run)
			s := consistency.NewStream(&c, src, len(c.Events))
			for i := range c.Events {
				e := &c.Events[i]
				s.Add(e)
				if pb := c.PB(e); pb != nil {
					pb.VT = nil
				}
				if e.VT != trace.None {
					c.VTs[e.VT] = nil
				}
			}
			if got := s.Report(); !reflect.DeepEqual(got, want) {
				t.Fatalf("src=%v: vectors dropped after Add:\n%s\nthe intact run:\n%s", src != nil, dumpReport(got), dumpReport(want))
			}
		}
	})
}

// unshared copies run giving every event its own piggyback and vector
// entry (the engine shares one among events of one state), so that
// dropping an event's vectors drops no later event's.
func unshared(run *trace.Run) trace.Run {
	c := *run
	c.Events = slices.Clone(run.Events)
	c.PBs, c.VTs = nil, nil
	for i := range c.Events {
		e := &c.Events[i]
		if pb := run.PB(e); pb != nil {
			e.PB = int32(len(c.PBs))
			c.PBs = append(c.PBs, *pb)
		}
		if vt := run.VTOf(e); vt != nil {
			e.VT = int32(len(c.VTs))
			c.VTs = append(c.VTs, vt)
		}
	}
	return c
}
