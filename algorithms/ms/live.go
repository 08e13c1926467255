package ms

import (
	"math"

	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// Live is the default-variant MS state machine of one process of a
// running system (examples/bank drives one per OS process). The replay
// engine's MS simulates every process at once, so it knows each
// recovery (origin, count, r) and the fail event it answers from the
// origin's restart. A live process learns other processes' recoveries
// only from what reaches it: Rollback requests carry (origin, count, r),
// and a piggyback's F names recoveries it has not heard of yet (a message
// "from the future", held until their requests arrive). Live records
// both before MS judges the input; everything else is MS unchanged.
//
// Of the trace, MS reads only the process names; a live process calls
// Step only with inputs of its own process.
type Live struct {
	*MS
	failure func(origin, count int32) replay.Seq
}

// NewLive returns the state machine of one process of a system whose
// processes are procs, in order (piggybacks and bodies name them by
// index). failure(origin, count) names the fail event of origin's
// count-th failure, in the caller's own terms: a live process cannot
// know a merged run's seqs, and MS only hands the name back in the
// effects that answer that failure (e.g. the hold of a message from the
// future, before its Rollback request has told the process more).
func NewLive(procs []string, failure func(origin, count int32) replay.Seq) *Live {
	a, _ := New(Default, &trace.Trace{Processes: procs})
	return &Live{MS: a, failure: failure}
}

// Step implements replay.Algorithm.
func (l *Live) Step(in *replay.Input, fx []replay.Effect) []replay.Effect {
	switch in.Kind {
	case replay.InControl:
		if in.Control == trace.ControlRollback {
			l.learn(in.Body, in.Failure)
		}
	case replay.InRestart:
		for i := range in.Pending {
			if m := &in.Pending[i]; m.Control == trace.ControlRollback {
				l.learn(m.Body, m.Failure)
			}
		}
	case replay.InRecv:
		if in.PB != nil {
			for _, e := range in.PB.F {
				l.known(e.P, e.Count)
			}
		}
	}
	return l.MS.Step(in, fx)
}

// known gives recs[o] an entry for each of o's first c recoveries. One
// not learned yet gets its failure's name and a line no staleness test
// reaches: stale() tests only recoveries the process has applied, and it
// applies one only from its request, which learn has read first.
func (l *Live) known(o, c int32) {
	if o < 0 || int(o) >= len(l.recs) {
		return
	}
	for k := int32(len(l.recs[o])); k < c; k++ {
		l.recs[o] = append(l.recs[o], recovery{r: math.MaxInt32, failure: l.failure(o, k+1)})
	}
}

// learn records the recovery a Rollback request announces.
func (l *Live) learn(b *trace.ControlBody, failure replay.Seq) {
	if b == nil || b.Count < 1 || b.Origin < 0 || int(b.Origin) >= len(l.recs) {
		return
	}
	l.known(b.Origin, b.Count)
	l.recs[b.Origin][b.Count-1] = recovery{r: b.R, failure: failure}
}
