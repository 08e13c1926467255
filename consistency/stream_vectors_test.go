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
// each piggyback's vector forgotten (trace.Piggyback.Forget, which keeps
// its size for the statistics) and each checkpoint's set to nil right
// after Add gets the report Check gives the intact run — with the source
// trace (the spec then drops what only a recovery reads once the trace
// has no failure left) and without.
func TestVectorsDroppedAfterAdd(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tr := gentest.Trace().Draw(t, "trace")
		run := replayed(t, "pk", tr)
		for _, src := range []*trace.Trace{tr, nil} {
			want := consistency.Check(run, src)
			c := *run
			c.PBs = slices.Clone(run.PBs)
			c.VTs = slices.Clone(run.VTs)
			s := consistency.NewStream(&c, src, len(c.Events))
			for i := range c.Events {
				e := &c.Events[i]
				s.Add(e)
				if pb := c.PB(e); pb != nil {
					pb.Forget()
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
