package hmnr

import (
	"testing"

	"github.com/ckpt-dev/ckpt/algorithms/protocoltest"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// reference is HMNR from what its variables mean, over the causal past:
//   - m.ckpt[i] = ckpt[i]: some send of i in its current interval
//     happened before m's send;
//   - m.taken[i]: moreover a checkpoint of another process lies between
//     such a send and m's send;
//   - m.greater[k]: m.lc exceeds the clock of every event of k that
//     happened before m's send (true when there is none);
//   - sent_to[k]: i sent to k in its current interval.
//
// The clock itself follows its simple rule (Stamp): +1 at a checkpoint,
// max with the message's at a receipt.
type reference struct{}

func clock(s *protocoltest.Sim, e int32) int32 {
	if e == trace.None {
		return 0
	}
	return s.Events[e].Stamp
}

func (reference) Stamp(s *protocoltest.Sim, p int32, kind trace.Kind, _ trace.CkptType, send int32) int32 {
	lc := clock(s, s.Last(p))
	switch kind {
	case trace.Checkpoint:
		return lc + 1
	case trace.Recv:
		return max(lc, clock(s, send))
	}
	return lc
}

func (r reference) Forced(s *protocoltest.Sim, i, send int32) bool {
	return r.closesCycle(s, i, send) || clock(s, send) > clock(s, s.Last(i)) && r.overtakes(s, i, send)
}

// closesCycle is m.ckpt[i] = ckpt[i] && m.taken[i].
func (reference) closesCycle(s *protocoltest.Sim, i, send int32) bool {
	x := s.Interval(i)
	for a := range s.Events {
		if ev := &s.Events[a]; ev.P != i || ev.Kind != trace.Send || ev.Interval != x || !s.Before(int32(a), send) {
			continue
		}
		for c := range s.Events {
			if ev := &s.Events[c]; ev.Kind == trace.Checkpoint && ev.P != i && s.Before(int32(a), int32(c)) && s.Before(int32(c), send) {
				return true
			}
		}
	}
	return false
}

// overtakes is ∃k: sent_to[k] && m.greater[k].
func (reference) overtakes(s *protocoltest.Sim, i, send int32) bool {
	x, lc := s.Interval(i), clock(s, send)
	for a := range s.Events {
		ev := &s.Events[a]
		if ev.P != i || ev.Kind != trace.Send || ev.Interval != x {
			continue
		}
		greater := true
		for e := range s.Events {
			if s.Events[e].P == ev.To && s.Before(int32(e), send) && s.Events[e].Stamp >= lc {
				greater = false
			}
		}
		if greater {
			return true
		}
	}
	return false
}

func newHMNR(tr *trace.Trace) (replay.Algorithm, error) { return New(tr) }

func TestAgainstReference(t *testing.T) {
	protocoltest.CheckAgainstReference(t, newHMNR, reference{})
}

func TestPromise(t *testing.T) {
	protocoltest.CheckPromise(t, newHMNR, protocoltest.ZCycleFree)
}

func TestNoForcedMutantBreaksPromise(t *testing.T) {
	protocoltest.CheckMutantBreaks(t, newHMNR,
		func(a replay.Algorithm) replay.Algorithm { return protocoltest.NoForced(a) }, protocoltest.ZCycleFree)
}

// TestInitialCheckpoint: checkpoint 0 goes through the checkpoint
// procedure (ckpt[i] = 1). Were it skipped (ckpt[i] = 0, the other
// reading), "P0's interval 0" and "nothing of P0" would look alike, and
// P1's message — sent after P1's checkpoint, with taken[0] set by it —
// would force P0 although no path leads from P0 to P1.
func TestInitialCheckpoint(t *testing.T) {
	tr, err := trace.NewBuilder("P0", "P1").
		Checkpoint(0.1, "P1").
		Send(0.2, "P1", "P0", "m").Recv(0.3, "P0", "m").
		Build()
	if err != nil {
		t.Fatal(err)
	}
	if c := protocoltest.CountsOf(protocoltest.Replay(t, tr, mustNew(t, tr))); c.Forced != 0 {
		t.Fatalf("%d forced checkpoints, want none", c.Forced)
	}
	skipped := mustNew(t, tr)
	for p := range skipped.procs {
		skipped.procs[p].ckpt[p] = 0
	}
	if c := protocoltest.CountsOf(protocoltest.Replay(t, tr, skipped)); c.Forced != 1 {
		t.Fatalf("without the procedure at checkpoint 0: %d forced checkpoints, want the needless one", c.Forced)
	}
}
