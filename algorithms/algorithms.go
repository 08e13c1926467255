// Package algorithms maps algorithm names to their state machines, so that
// commands can choose one by name without knowing the packages.
package algorithms

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/algorithms/ms"
	"github.com/ckpt-dev/ckpt/algorithms/pk"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// Names are the algorithms `--algo` accepts, besides "both".
var Names = []string{"ms", "pk"}

// New returns a fresh state machine for algorithm name ("ms" or "pk") and
// variant ("" or, for ms, "textbook"; the test-only mutants of docs/ms.md
// and docs/pk.md are accepted too) for the trace tr.
func New(name, variant string, tr *trace.Trace) (replay.Algorithm, error) {
	switch name {
	case "ms":
		return ms.New(variant, tr)
	case "pk":
		return pk.New(variant, tr)
	}
	return nil, fmt.Errorf("unknown algorithm %q (want ms or pk)", name)
}
