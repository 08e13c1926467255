package explore

import (
	"bytes"
	"context"

	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/algorithms/mutants"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// opaque hides an algorithm's Clone: explore then replays every schedule
// from the start.
type opaque struct{ replay.Algorithm }

// TestSharedPrefixesMatchScratch: exploring with replays shared along
// the prefix tree (replay.Sim clones) reports exactly what replaying every
// schedule from the start reports, for MS, PK and every broken variant,
// on random small traces with up to two injected failures, their own
// failures kept or stripped.
func TestSharedPrefixesMatchScratch(t *testing.T) {
	scratch := func(name, variant string, tr *trace.Trace) (replay.Algorithm, error) {
		a, err := mutants.New(name, variant, tr)
		return opaque{a}, err
	}
	rapid.Check(t, func(rt *rapid.T) {
		tr := smallTraces().Draw(rt, "trace")
		av := rapid.SampledFrom(algVariants).Draw(rt, "algorithm")
		o := Options{
			Algorithms: []string{av.name}, Variant: av.variant, New: mutants.New,
			Failures:      rapid.IntRange(1, 2).Draw(rt, "k"),
			StripFailures: rapid.Bool().Draw(rt, "strip"),
			Workers:       rapid.IntRange(1, 3).Draw(rt, "workers"),
			ShrinkTests:   50,
		}
		shared, err := Run(context.Background(), tr, o)
		if err != nil {
			rt.Fatal(err)
		}
		o.New = scratch
		alone, err := Run(context.Background(), tr, o)
		if err != nil {
			rt.Fatal(err)
		}
		a, b := mustJSON(rt, shared), mustJSON(rt, alone)
		if !bytes.Equal(a, b) {
			rt.Fatalf("shared prefixes:\n%s\nevery schedule alone:\n%s", a, b)
		}
	})
}
