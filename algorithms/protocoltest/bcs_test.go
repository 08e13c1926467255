package protocoltest_test

import (
	"github.com/ckpt-dev/ckpt/algorithms"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/algorithms/bcs"
	"github.com/ckpt-dev/ckpt/algorithms/protocoltest"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

func bcsPB(lc int32) trace.Piggyback {
	p := trace.NewPiggyback()
	p.CIC = &trace.CIC{LC: lc}
	return p
}

// TestBCSStep: the rules of the package comment, input by input.
func TestBCSStep(t *testing.T) {
	tick, send, recv := protocoltest.Tick, protocoltest.Send, protocoltest.Recv
	protocoltest.CheckSteps(t, newBCS, []protocoltest.StepCase{
		{Name: "basic checkpoints count up from 1", Steps: []protocoltest.Step{
			{In: send(0, 1), Want: []string{"piggyback lc=0"}},
			{In: tick(0), Want: []string{"checkpoint 1 basic sn=1"}},
			{In: tick(0), Want: []string{"checkpoint 2 basic sn=2"}},
			{In: send(0, 1), Want: []string{"piggyback lc=2"}},
			{In: tick(1), Want: []string{"checkpoint 1 basic sn=1"}},
		}},
		// The forced checkpoint takes the message's number, not lc+1:
		// the S_n lines of the theorem need it (TestBCSForcedNumber).
		{Name: "forced before delivery, numbered m.lc", Steps: []protocoltest.Step{
			{In: recv(1, 0, bcsPB(3)), Want: []string{"checkpoint 1 forced sn=3", "deliver"}},
			{In: send(1, 2), Want: []string{"piggyback lc=3"}},
			{In: tick(1), Want: []string{"checkpoint 2 basic sn=4"}},
		}},
		{Name: "no forced checkpoint for an equal or lower lc", Steps: []protocoltest.Step{
			{In: tick(1), Want: []string{"checkpoint 1 basic sn=1"}},
			{In: recv(1, 0, bcsPB(1)), Want: []string{"deliver"}},
			{In: recv(1, 0, bcsPB(0)), Want: []string{"deliver"}},
			{In: send(1, 2), Want: []string{"piggyback lc=1"}},
		}},
		{Name: "a tick of a down process takes nothing", Steps: []protocoltest.Step{
			{In: protocoltest.Down(tick(2)), Want: nil},
			{In: tick(2), Want: []string{"checkpoint 1 basic sn=1"}},
		}},
	})
}

// TestBCSGolden replays small traces; testdata/bcs/NAME.run.jsonl holds each
// run (rewrite with -update).
func TestBCSGolden(t *testing.T) {
	protocoltest.CheckGolden(t, "bcs", newBCS, []protocoltest.GoldenCase{
		// P0's basic checkpoint raises its lc to 1; m1 forces P1's
		// checkpoint 1 before the delivery; m2, sent back with lc 1,
		// forces nothing.
		{Name: "forced", Trace: tracetest.NewBuilder("P0", "P1").
			Checkpoint(0.1, "P0").
			Send(0.2, "P0", "P1", "m1").Recv(0.5, "P1", "m1").
			Send(0.6, "P1", "P0", "m2").Recv(0.9, "P0", "m2"), Want: protocoltest.Counts{Basic: 1, Forced: 1}},
		// The lc travels: P0 (lc 2) → P1 → P2, each forced to 2 on the
		// way, though P2 never heard from P0 directly; P2's own tick
		// afterwards takes 3.
		{Name: "transitive", Trace: tracetest.NewBuilder("P0", "P1", "P2").
			Checkpoint(0.1, "P0").Checkpoint(0.2, "P0").
			Send(0.3, "P0", "P1", "m1").Recv(0.4, "P1", "m1").
			Send(0.5, "P1", "P2", "m2").Recv(0.6, "P2", "m2").
			Checkpoint(0.7, "P2"), Want: protocoltest.Counts{Basic: 3, Forced: 2}},
		// Non-FIFO: m2 (lc 1) overtakes m1 (lc 0); m1 then forces
		// nothing.
		{Name: "overtaken", Trace: tracetest.NewBuilder("P0", "P1").
			Send(0.1, "P0", "P1", "m1").
			Checkpoint(0.2, "P0").
			Send(0.3, "P0", "P1", "m2").
			Recv(0.4, "P1", "m2").Recv(0.5, "P1", "m1"), Want: protocoltest.Counts{Basic: 1, Forced: 1}},
	})
}

func TestBCSRefusesFailures(t *testing.T) { protocoltest.CheckRefusesFailures(t, newBCS) }

// bcsReference is BCS from its meaning: a process's clock is the largest
// number of a checkpoint in its causal past (0 for the initial ones); a
// basic checkpoint is numbered one more, and a receipt whose send has a
// larger clock in its past is preceded by a forced checkpoint numbered
// with it.
type bcsReference struct{}

// bcsClock is the largest checkpoint number in the causal past of event e
// (None: no event yet, the initial checkpoint's 0).
func bcsClock(s *protocoltest.Sim, e int32) int32 {
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

func (bcsReference) Forced(s *protocoltest.Sim, p, send int32) bool {
	return bcsClock(s, send) > bcsClock(s, s.Last(p))
}

func (bcsReference) Stamp(s *protocoltest.Sim, p int32, kind trace.Kind, typ trace.CkptType, send int32) int32 {
	switch {
	case kind != trace.Checkpoint:
		return 0 // unused: clocks come from checkpoints
	case typ == trace.CkptForced:
		return bcsClock(s, send)
	}
	return bcsClock(s, s.Last(p)) + 1
}

func newBCS(tr *trace.Trace) (replay.Algorithm, error) { return algorithms.New(bcs.Name, "", tr) }

func TestBCSAgainstReference(t *testing.T) {
	protocoltest.CheckAgainstReference(t, newBCS, bcsReference{})
}

// TestBCSPromise: no useless checkpoint, and every S_n consistent (the
// number a checkpoint records is the protocol's lc).
func TestBCSPromise(t *testing.T) {
	protocoltest.CheckPromise(t, newBCS, protocoltest.ZCycleFree, protocoltest.SnConsistent)
}

func TestBCSNoForcedMutantBreaksPromise(t *testing.T) {
	protocoltest.CheckMutantBreaks(t, newBCS,
		func(a replay.Algorithm) replay.Algorithm { return protocoltest.NoForced(a) }, protocoltest.ZCycleFree)
}

// TestBCSForcedNumber: the rule "forced checkpoint, then lc := m.lc"
// leaves open which number the forced checkpoint records. Numbering it
// lc+1 (the mutant) instead of m.lc breaks the S_n lines: here P2's
// forced checkpoint would be numbered 1 < 2 and S_2 would cut m2 between
// a send after P1's checkpoint 2 and a receipt before P2's next one.
func TestBCSForcedNumber(t *testing.T) {
	tr, err := tracetest.NewBuilder("P0", "P1", "P2").
		Checkpoint(0.1, "P1").Checkpoint(0.2, "P1").
		Send(0.3, "P1", "P2", "m2").Recv(0.4, "P2", "m2").
		Checkpoint(0.5, "P2").
		Build()
	if err != nil {
		t.Fatal(err)
	}
	run := protocoltest.Replay(t, tr, mustBCS(t, tr))
	pt, err := protocoltest.PatternOf(run)
	if err != nil {
		t.Fatal(err)
	}
	if err := protocoltest.SnConsistent(pt); err != nil {
		t.Fatal(err)
	}
	lcPlusOne := &protocoltest.Filtered{Algorithm: mustBCS(t, tr), Drop: func(e *replay.Effect) bool {
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

func mustBCS(t *testing.T, tr *trace.Trace) *bcs.BCS {
	t.Helper()
	return bcs.New(tr)
}

func BenchmarkReplayBCS100K(b *testing.B) { protocoltest.BenchReplay(b, newBCS, 100_000) }

func BenchmarkReplayBCS1M(b *testing.B) { protocoltest.BenchReplay(b, newBCS, 1_000_000) }
