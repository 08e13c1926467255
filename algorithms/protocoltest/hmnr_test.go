package protocoltest_test

import (
	"github.com/ckpt-dev/ckpt/algorithms"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/algorithms/hmnr"
	"github.com/ckpt-dev/ckpt/algorithms/protocoltest"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// hmnrEnt is one process's part of a piggyback: taken, greater, ckpt.
type hmnrEnt struct {
	taken, greater bool
	ckpt           int32
}

func hmnrPB(lc int32, es ...hmnrEnt) trace.Piggyback {
	p := trace.NewPiggyback()
	c := &trace.CIC{LC: lc, Ckpt: []int32{}, Taken: []bool{}, Greater: []bool{}}
	for _, e := range es {
		c.Ckpt = append(c.Ckpt, e.ckpt)
		c.Taken = append(c.Taken, e.taken)
		c.Greater = append(c.Greater, e.greater)
	}
	p.CIC = c
	return p
}

func mustHMNR(t protocoltest.T, tr *trace.Trace) *hmnr.HMNR {
	t.Helper()
	return hmnr.New(tr)
}

// TestHMNRStep: the rules of the package comment, input by input. Piggybacks
// render as lc, the ckpt vector, and taken and greater as one bit per
// process.
func TestHMNRStep(t *testing.T) {
	tick, send, recv := protocoltest.Tick, protocoltest.Send, protocoltest.Recv
	none := hmnrEnt{}
	protocoltest.CheckSteps(t, newHMNR, []protocoltest.StepCase{
		// Checkpoint 0 went through the procedure: taken and greater
		// set for the others, ckpt[i] = 1, lc = 0.
		{Name: "initial state and a basic checkpoint", Steps: []protocoltest.Step{
			{In: send(1, 0), Want: []string{"piggyback lc=0 ckpt=0,1,0 taken=101 greater=101"}},
			{In: tick(1), Want: []string{"checkpoint 1 basic sn=1"}},
			{In: send(1, 0), Want: []string{"piggyback lc=1 ckpt=0,2,0 taken=101 greater=101"}},
		}},
		// Condition 1: m knows P0's current checkpoint (ckpt 1) through
		// a checkpoint (taken): a Z-cycle would close.
		{Name: "condition 1 forces", Steps: []protocoltest.Step{
			{In: recv(0, 1, hmnrPB(0, hmnrEnt{true, false, 1}, none, none)), Want: []string{"checkpoint 1 forced sn=1", "deliver"}},
		}},
		{Name: "condition 1 needs taken", Steps: []protocoltest.Step{
			{In: recv(0, 1, hmnrPB(0, hmnrEnt{false, false, 1}, none, none)), Want: []string{"deliver"}},
		}},
		// Condition 2: a higher lc, and P0 sent in this interval to P2,
		// whose clock the sender knows to be lower.
		{Name: "condition 2 forces", Steps: []protocoltest.Step{
			{In: send(0, 2), Want: []string{"piggyback lc=0 ckpt=1,0,0 taken=011 greater=011"}},
			{In: recv(0, 1, hmnrPB(1, none, none, hmnrEnt{false, true, 0})), Want: []string{"checkpoint 1 forced sn=1", "deliver"}},
			// lc stays 1 (= m.lc after the forced one), so greater
			// merges with &&: P1's drops (the sender's own), P2's stays.
			{In: send(0, 2), Want: []string{"piggyback lc=1 ckpt=2,0,0 taken=011 greater=001"}},
		}},
		{Name: "condition 2 needs greater of a destination", Steps: []protocoltest.Step{
			{In: send(0, 2), Want: []string{"piggyback lc=0 ckpt=1,0,0 taken=011 greater=011"}},
			{In: recv(0, 1, hmnrPB(1, hmnrEnt{false, true, 0}, hmnrEnt{}, hmnrEnt{false, false, 0})), Want: []string{"deliver"}},
			// lc := m.lc, greater := m.greater (own false).
			{In: send(0, 2), Want: []string{"piggyback lc=1 ckpt=1,0,0 taken=011 greater=000"}},
		}},
		{Name: "condition 2 needs a send in the interval", Steps: []protocoltest.Step{
			{In: recv(0, 1, hmnrPB(1, none, none, hmnrEnt{false, true, 0})), Want: []string{"deliver"}},
		}},
		// ckpt and taken: newer values replace, equal ones or-merge.
		{Name: "ckpt and taken merge", Steps: []protocoltest.Step{
			{In: recv(0, 1, hmnrPB(0, none, hmnrEnt{false, false, 2}, hmnrEnt{true, false, 0})), Want: []string{"deliver"}},
			{In: send(0, 1), Want: []string{"piggyback lc=0 ckpt=1,2,0 taken=001 greater=000"}},
			{In: recv(0, 1, hmnrPB(0, none, hmnrEnt{true, false, 2}, hmnrEnt{false, false, 0})), Want: []string{"deliver"}},
			{In: send(0, 1), Want: []string{"piggyback lc=0 ckpt=1,2,0 taken=011 greater=000"}},
			{In: protocoltest.Down(tick(0)), Want: nil},
		}},
	})
}

func TestHMNRRefusesFailures(t *testing.T) { protocoltest.CheckRefusesFailures(t, newHMNR) }

// TestHMNRShortPiggyback: a piggyback vector shorter or longer than the
// number of processes reads as zeros beyond its end, never panics.
func TestHMNRShortPiggyback(t *testing.T) {
	a := mustHMNR(t, protocoltest.Procs(t, "P0", "P1", "P2"))
	short := hmnrPB(5, hmnrEnt{true, true, 1})
	long := hmnrPB(0, hmnrEnt{}, hmnrEnt{}, hmnrEnt{}, hmnrEnt{true, true, 9})
	err := protocoltest.Steps(a, []protocoltest.Step{
		{In: protocoltest.Recv(0, 1, short), Want: []string{"checkpoint 1 forced sn=1", "deliver"}},
		{In: protocoltest.Recv(0, 1, long), Want: []string{"deliver"}},
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestHMNRGolden replays small traces; testdata/hmnr/NAME.run.jsonl holds each
// run (rewrite with -update).
func TestHMNRGolden(t *testing.T) {
	protocoltest.CheckGolden(t, "hmnr", newHMNR, []protocoltest.GoldenCase{
		// Condition 1: m1 leaves P0's interval 0, P1 checkpoints, and
		// m2 would bring the dependency back into that interval: C(1,1)
		// would be on the Z-cycle [m2 m1]. Forced.
		{Name: "cycle", Trace: tracetest.NewBuilder("P0", "P1").
			Send(0.1, "P0", "P1", "m1").Recv(0.2, "P1", "m1").
			Checkpoint(0.3, "P1").
			Send(0.4, "P1", "P0", "m2").Recv(0.5, "P0", "m2"), Want: protocoltest.Counts{Basic: 1, Forced: 1}},
		// Condition 2: P0 sent to P1 in its interval; m2 has a higher lc
		// and its sender knows nothing of P1's clock (greater): forced,
		// as BCS would.
		{Name: "greater", Trace: tracetest.NewBuilder("P0", "P1", "P2").
			Send(0.1, "P0", "P1", "m0").
			Checkpoint(0.2, "P2").
			Send(0.3, "P2", "P0", "m2").Recv(0.4, "P0", "m2").
			Recv(0.5, "P1", "m0"), Want: protocoltest.Counts{Basic: 1, Forced: 1}},
		// The same, but P2 heard from P1 after P1's checkpoint: P1's lc
		// is not below m2's, so HMNR skips the forced checkpoint BCS
		// would take.
		{Name: "not-greater", Trace: tracetest.NewBuilder("P0", "P1", "P2").
			Checkpoint(0.05, "P1").
			Send(0.1, "P1", "P2", "mA").Recv(0.15, "P2", "mA").
			Send(0.2, "P0", "P1", "m0").
			Send(0.3, "P2", "P0", "m2").Recv(0.4, "P0", "m2").
			Recv(0.5, "P1", "m0"), Want: protocoltest.Counts{Basic: 1, Forced: 0}},
	})
}

// hmnrReference is HMNR from what its variables mean, over the causal past:
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
type hmnrReference struct{}

func hmnrClock(s *protocoltest.Sim, e int32) int32 {
	if e == trace.None {
		return 0
	}
	return s.Events[e].Stamp
}

func (hmnrReference) Stamp(s *protocoltest.Sim, p int32, kind trace.Kind, _ trace.CkptType, send int32) int32 {
	lc := hmnrClock(s, s.Last(p))
	switch kind {
	case trace.Checkpoint:
		return lc + 1
	case trace.Recv:
		return max(lc, hmnrClock(s, send))
	}
	return lc
}

func (r hmnrReference) Forced(s *protocoltest.Sim, i, send int32) bool {
	return r.closesCycle(s, i, send) || hmnrClock(s, send) > hmnrClock(s, s.Last(i)) && r.overtakes(s, i, send)
}

// closesCycle is m.ckpt[i] = ckpt[i] && m.taken[i].
func (hmnrReference) closesCycle(s *protocoltest.Sim, i, send int32) bool {
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
func (hmnrReference) overtakes(s *protocoltest.Sim, i, send int32) bool {
	x, lc := s.Interval(i), hmnrClock(s, send)
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

func newHMNR(tr *trace.Trace) (replay.Algorithm, error) { return algorithms.New(hmnr.Name, "", tr) }

func TestHMNRAgainstReference(t *testing.T) {
	protocoltest.CheckAgainstReference(t, newHMNR, hmnrReference{})
}

func TestHMNRPromise(t *testing.T) {
	protocoltest.CheckPromise(t, newHMNR, protocoltest.ZCycleFree)
}

func TestHMNRNoForcedMutantBreaksPromise(t *testing.T) {
	protocoltest.CheckMutantBreaks(t, newHMNR,
		func(a replay.Algorithm) replay.Algorithm { return protocoltest.NoForced(a) }, protocoltest.ZCycleFree)
}

func BenchmarkReplayHMNR100K(b *testing.B) { protocoltest.BenchReplay(b, newHMNR, 100_000) }

func BenchmarkReplayHMNR1M(b *testing.B) { protocoltest.BenchReplay(b, newHMNR, 1_000_000) }
