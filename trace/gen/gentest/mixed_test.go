package gentest

import (
	"slices"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/trace"
)

func ops(tr *trace.Trace) int {
	n := 0
	for _, e := range tr.Events {
		if e.Kind.IsOp() {
			n++
		}
	}
	return n
}

// TestMixedDrawsBothHalves: Mixed(50, 50) draws both Trace's small
// traces and generated ones of at least 50 ops, all valid.
func TestMixedDrawsBothHalves(t *testing.T) {
	small, long := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		tr := Mixed(50, 50).Draw(t, "trace")
		if err := trace.Validate(tr); err != nil {
			t.Fatal(err)
		}
		switch {
		case ops(tr) >= 50:
			long++
		case len(tr.Events) < 20:
			small++
		}
	})
	if small == 0 || long == 0 {
		t.Errorf("%d small and %d generated traces: want both", small, long)
	}
}

// TestFailureFree: the fail events go, every other event stays in its
// order, and FailureFree draws no failure.
func TestFailureFree(t *testing.T) {
	tr, err := tracetest.NewBuilder("P0", "P1").
		Send(1, "P0", "P1", "m").Fail(2, "P1").Recv(3, "P1", "m").FailDown(4, "P0", 1).Checkpoint(6, "P0").Build()
	if err != nil {
		t.Fatal(err)
	}
	var out *trace.Trace
	rapid.Check(t, func(rt *rapid.T) { out = FailureFree(rapid.Just(tr)).Draw(rt, "trace") })
	var kinds []trace.Kind
	for _, e := range out.Events {
		kinds = append(kinds, e.Kind)
	}
	if want := []trace.Kind{trace.Send, trace.Recv, trace.Checkpoint}; !slices.Equal(kinds, want) || out.Messages[0].Recv != 1 {
		t.Errorf("kinds %v (want %v), messages %+v", kinds, want, out.Messages)
	}
	rapid.Check(t, func(t *rapid.T) {
		for _, e := range FailureFree(Mixed(20, 40)).Draw(t, "trace").Events {
			if e.Kind == trace.Fail {
				t.Fatal("a failure drawn")
			}
		}
	})
}
