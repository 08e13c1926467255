package protocoltest

import (
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
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
