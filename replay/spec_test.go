package replay_test

import (
	"testing"

	"github.com/ckpt-dev/ckpt/algorithms/mutants"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/replay/replaytest"
	"github.com/ckpt-dev/ckpt/trace"
)

// TestSpecEngine checks the engine rules of SPEC §3 and §6, one case per
// rule, in testdata/spec, replayed through MS (the engine needs an
// algorithm; MS's own rules are tested in algorithms/ms/testdata/spec).
func TestSpecEngine(t *testing.T) {
	replaytest.SpecDir(t, "testdata/spec", func(v string, tr *trace.Trace) (replay.Algorithm, error) { return mutants.New("ms", v, tr) })
}
