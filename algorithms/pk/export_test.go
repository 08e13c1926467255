package pk

import (
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
)

// GoldenTraces returns the traces of the golden cases and of seeds 1..n
// of the random recoveries, for the external tests (mutants_test.go),
// which cannot live in package pk: the mutants import it.
func GoldenTraces(t *testing.T, n int) []*trace.Trace {
	var out []*trace.Trace
	for _, tc := range goldenCases {
		tr, err := tc.trace.Build()
		if err != nil {
			t.Fatal(err)
		}
		tr.Name = tc.name
		out = append(out, tr)
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		out = append(out, genTrace(t, randomConfig(seed)))
	}
	return out
}
