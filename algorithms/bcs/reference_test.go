package bcs

import (
	"testing"

	"github.com/ckpt-dev/ckpt/algorithms/protocoltest"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// reference is BCS from its meaning: a process's clock is the largest
// number of a checkpoint in its causal past (0 for the initial ones); a
// basic checkpoint is numbered one more, and a receipt whose send has a
// larger clock in its past is preceded by a forced checkpoint numbered
// with it.
type reference struct{}

// clock is the largest checkpoint number in the causal past of event e
// (None: no event yet, the initial checkpoint's 0).
func clock(s *protocoltest.Sim, e int32) int32 {
	lc := int32(0)
	if e == trace.None {
		return lc
	}
	for i := range s.Events {
		if ev := &s.Events[i]; ev.Kind == trace.Checkpoint && ev.Stamp > lc && s.Before(int32(i), e) {
			lc = ev.Stamp
		}
	}
	return lc
}

func (reference) Forced(s *protocoltest.Sim, p, send int32) bool {
	return clock(s, send) > clock(s, s.Last(p))
}

func (reference) Stamp(s *protocoltest.Sim, p int32, kind trace.Kind, typ trace.CkptType, send int32) int32 {
	switch {
	case kind != trace.Checkpoint:
		return 0 // unused: clocks come from checkpoints
	case typ == trace.CkptForced:
		return clock(s, send)
	}
	return clock(s, s.Last(p)) + 1
}

func newBCS(tr *trace.Trace) (replay.Algorithm, error) { return New(tr) }

func TestAgainstReference(t *testing.T) {
	protocoltest.CheckAgainstReference(t, newBCS, reference{})
}

// TestPromise: no useless checkpoint, and every S_n consistent (the
// number a checkpoint records is the protocol's lc).
func TestPromise(t *testing.T) {
	protocoltest.CheckPromise(t, newBCS, protocoltest.ZCycleFree, protocoltest.SnConsistent)
}

func TestNoForcedMutantBreaksPromise(t *testing.T) {
	protocoltest.CheckMutantBreaks(t, newBCS,
		func(a replay.Algorithm) replay.Algorithm { return protocoltest.NoForced(a) }, protocoltest.ZCycleFree)
}

// TestForcedNumber: the rule "forced checkpoint, then lc := m.lc"
// leaves open which number the forced checkpoint records. Numbering it
// lc+1 (the mutant) instead of m.lc breaks the S_n lines: here P2's
// forced checkpoint would be numbered 1 < 2 and S_2 would cut m2 between
// a send after P1's checkpoint 2 and a receipt before P2's next one.
func TestForcedNumber(t *testing.T) {
	tr, err := trace.NewBuilder("P0", "P1", "P2").
		Checkpoint(0.1, "P1").Checkpoint(0.2, "P1").
		Send(0.3, "P1", "P2", "m2").Recv(0.4, "P2", "m2").
		Checkpoint(0.5, "P2").
		Build()
	if err != nil {
		t.Fatal(err)
	}
	run := protocoltest.Replay(t, tr, mustNew(t, tr))
	pt, err := protocoltest.PatternOf(run)
	if err != nil {
		t.Fatal(err)
	}
	if err := protocoltest.SnConsistent(pt); err != nil {
		t.Fatal(err)
	}
	lcPlusOne := &protocoltest.Filtered{Algorithm: mustNew(t, tr), Drop: func(e *replay.Effect) bool {
		if e.Kind == replay.EffCheckpoint && e.CkptType == trace.CkptForced {
			e.Sn = e.Ckpt // P2's first checkpoint: lc+1 = 1
		}
		return false
	}}
	pt, err = protocoltest.PatternOf(protocoltest.Replay(t, tr, lcPlusOne))
	if err != nil {
		t.Fatal(err)
	}
	if protocoltest.SnConsistent(pt) == nil {
		t.Fatal("numbering the forced checkpoint lc+1 kept every S_n consistent")
	}
}

func mustNew(t *testing.T, tr *trace.Trace) *BCS {
	t.Helper()
	a, err := New(tr)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
