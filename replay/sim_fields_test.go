package replay

import (
	"reflect"
	"slices"
	"testing"
)

// TestCloneKnowsEveryField: Sim.Clone copies the engine's state field by
// field (a struct copy shares slices and maps). A field added to the
// engine fails this test until Clone is told about it.
func TestCloneKnowsEveryField(t *testing.T) {
	for _, c := range []struct {
		v     any
		known []string
	}{
		{engine{}, []string{"tr", "alg", "params", "out", "procs", "q", "copies", "ctrls", "ctrlFree", "head", "tail", "ncopy",
			"now", "txSeq", "arrSeq", "lastPB", "lastVT", "bodies", "in", "fx", "err", "stream", "cur", "releaseState"}},
		{proc{}, []string{"prog", "live", "ckpts", "replay", "rcur", "pending", "exec", "gen", "down", "heldProc", "paused",
			"pausedAt", "heldRecv", "holdFor", "blocked", "woken"}},
		{releaseState{}, []string{"stable", "pbRefs", "drops", "next"}},
	} {
		ty := reflect.TypeOf(c.v)
		for i := range ty.NumField() {
			if name := ty.Field(i).Name; !slices.Contains(c.known, name) {
				t.Errorf("%s.%s is new: copy it in Sim.Clone (sim.go) if it is mutable, then list it here", ty.Name(), name)
			}
		}
	}
}
