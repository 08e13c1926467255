// Package replay is ckpt's discrete-event engine (SPEC §3): it runs every
// process of an execution trace as a piecewise-deterministic program over a
// reliable non-FIFO network, with timer ticks, log flushes and failures,
// and drives one recovery algorithm, recording every action as a run.
package replay

import (
	"errors"

	"github.com/ckpt-dev/ckpt/trace"
)

// Options are the replay options; zero fields take the trace's params,
// then the defaults of SPEC §2.
type Options struct {
	// Params set on the command line override the trace's.
	Params trace.Params
	// Variant is recorded in the run header ("textbook" for MS).
	Variant string
}

// Run replays tr through alg and returns the run.
func Run(tr *trace.Trace, alg Algorithm, opts Options) (*trace.Run, error) {
	return nil, errors.New("replay: not implemented yet")
}
