package pk

import (
	"slices"
	"testing"

	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// TestVectorsNeverRewritten: a vector PK hands out (a piggyback's or a
// checkpoint's) is never written again, by PK or the engine. The checker
// keeps the vectors it took by reference (consistency/spec_pk.go), so a
// buffer reused after its event was streamed would be judged against
// altered data without a word.
func TestVectorsNeverRewritten(t *testing.T) {
	type kept struct {
		seq       int
		vt, saved trace.VT
	}
	for _, tr := range lineTraces(t, 40) {
		a, err := New(Default, tr)
		if err != nil {
			t.Fatal(err)
		}
		var all []kept
		fed := 0
		keep := func(seq int, vt trace.VT) {
			if vt != nil {
				all = append(all, kept{seq, vt, slices.Clone(vt)})
			}
		}
		_, err = replay.Run(tr, a, replay.Options{Stream: func(run *trace.Run, upto int) int {
			for ; fed < upto; fed++ {
				e := &run.Events[fed]
				if e.PB != trace.None {
					keep(fed, run.PBs[e.PB].VT)
				}
				if e.VT != trace.None {
					keep(fed, run.VTs[e.VT])
				}
			}
			return upto
		}})
		if err != nil {
			t.Fatalf("%s: %v", tr.Name, err)
		}
		for _, k := range all {
			if !slices.Equal(k.vt, k.saved) {
				t.Fatalf("%s: the vector of seq %d was %v when streamed, %v at the end", tr.Name, k.seq, k.saved, k.vt)
			}
		}
		if len(all) == 0 {
			t.Fatalf("%s: no vector streamed", tr.Name)
		}
	}
}
