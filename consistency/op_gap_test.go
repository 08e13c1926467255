package consistency

import (
	"strings"
	"testing"
)

// TestOpGap: an op number may skip a few ops (a broken continuity, its
// gap padded) but not jump beyond maxOpGap past the ops its process has
// run (out of range): both fail, each with its own witness. (A run also
// has no op beyond its event count, so P1 makes it long enough.)
func TestOpGap(t *testing.T) {
	for _, tc := range []struct {
		next int32
		want string
	}{
		{64, "broken op continuity"}, // history.maxOpGap past op 0
		{66, "op 66 out of range"},
	} {
		b := newRun("ms", "P0", "P1")
		for k := range int32(70) { // a run long enough for either op
			b.internal("P1", k)
		}
		b.internal("P0", 0)
		b.internal("P0", tc.next)
		b.done("P0", "P1")
		r := Check(b.run, nil)
		found := false
		for _, p := range r.Properties {
			for _, v := range p.Violations {
				found = found || strings.Contains(v.Message, tc.want)
			}
		}
		if r.Valid || !found {
			t.Errorf("op 0 then op %d: want a failure naming %q:\n%s", tc.next, tc.want, dump(r))
		}
	}
}
