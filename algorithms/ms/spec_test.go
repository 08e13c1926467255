package ms_test

import (
	"testing"

	"github.com/ckpt-dev/ckpt/algorithms/ms"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/replay/replaytest"
	"github.com/ckpt-dev/ckpt/trace"
)

// TestSpecMS checks the MS rules of SPEC §4, one case per rule, in
// testdata/spec.
func TestSpecMS(t *testing.T) {
	replaytest.SpecDir(t, "testdata/spec", func(v string, tr *trace.Trace) (replay.Algorithm, error) { return ms.New(v, tr) })
}
