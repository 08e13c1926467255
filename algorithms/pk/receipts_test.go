package pk

import (
	"cmp"
	"slices"
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
)

// TestWalkIdentities: walking a token's receipt view (what the checker
// does, so that a checked run keeps no list per token) yields the set
// Identities lists, whether or not the list has been made, and its
// SetHash is that set's.
func TestWalkIdentities(t *testing.T) {
	tokens := 0
	for seed := uint64(1); seed <= 20; seed++ {
		run := replayPK(t, genTrace(t, randomConfig(seed)))
		for i := range run.Bodies {
			v, ok := run.Bodies[i].Receipts.(*receiptView)
			if !ok {
				continue
			}
			tokens++
			var walked []trace.Identity
			v.WalkIdentities(func(id trace.Identity) { walked = append(walked, id) })
			listed := slices.Clone(v.Identities())
			var again []trace.Identity
			v.WalkIdentities(func(id trace.Identity) { again = append(again, id) })
			byID := func(a, b trace.Identity) int { return cmp.Or(cmp.Compare(a.Msg, b.Msg), cmp.Compare(a.Inc, b.Inc)) }
			slices.SortFunc(walked, byID)
			slices.SortFunc(again, byID)
			slices.SortFunc(listed, byID)
			if !slices.Equal(walked, listed) || !slices.Equal(again, listed) {
				t.Fatalf("seed %d: walked %v, listed %v, walked after listing %v", seed, walked, listed, again)
			}
			// SetHash is the listed set's sum, kept per node.
			var sum uint64
			for _, id := range listed {
				sum += trace.IdentityHash(id)
			}
			if h, n := v.SetHash(); h != sum || n != len(listed) {
				t.Fatalf("seed %d: SetHash %x, %d; the list sums to %x, %d", seed, h, n, sum, len(listed))
			}
		}
	}
	if tokens == 0 {
		t.Fatal("no token carries a receipt view")
	}
}
