package protocoltest_test

import (
	"github.com/ckpt-dev/ckpt/algorithms"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/algorithms/fdas"
	"github.com/ckpt-dev/ckpt/algorithms/protocoltest"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// fdasPB builds a piggyback D of three processes from (process, value)
// pairs, the other entries 0.
func fdasPB(entries ...int32) trace.Piggyback {
	p := trace.NewPiggyback()
	p.CIC = &trace.CIC{LC: trace.None, DV: make([]int32, 3)}
	for i := 0; i+1 < len(entries); i += 2 {
		p.CIC.DV[entries[i]] = entries[i+1]
	}
	return p
}

// TestFDASStep: the rules of the package comment, input by input. D entries
// are one more than intervals (checkpoint 0 applies the checkpoint rule).
func TestFDASStep(t *testing.T) {
	tick, send, recv := protocoltest.Tick, protocoltest.Send, protocoltest.Recv
	protocoltest.CheckSteps(t, newFDAS, []protocoltest.StepCase{
		{Name: "piggyback D, own entry counting checkpoints", Steps: []protocoltest.Step{
			{In: send(0, 1), Want: []string{"piggyback dv=1,0,0"}},
			{In: tick(0), Want: []string{"checkpoint 1 basic"}},
			{In: send(0, 2), Want: []string{"piggyback dv=2,0,0"}},
		}},
		{Name: "no send in the interval: a new dependency forces nothing", Steps: []protocoltest.Step{
			{In: recv(1, 0, fdasPB(0, 3)), Want: []string{"deliver"}},
			{In: send(1, 2), Want: []string{"piggyback dv=3,1,0"}},
		}},
		{Name: "after a send, a new dependency forces a checkpoint first", Steps: []protocoltest.Step{
			{In: send(1, 2), Want: []string{"piggyback dv=0,1,0"}},
			{In: recv(1, 0, fdasPB(0, 1)), Want: []string{"checkpoint 1 forced", "deliver"}},
			{In: send(1, 2), Want: []string{"piggyback dv=1,2,0"}},
		}},
		// Interval 0 of P0 is a dependency P1 did not have: the offset
		// makes it one (TestIntervalZeroIsADependency).
		{Name: "first news of a process is new", Steps: []protocoltest.Step{
			{In: send(1, 2), Want: []string{"piggyback dv=0,1,0"}},
			{In: recv(1, 2, fdasPB(2, 1)), Want: []string{"checkpoint 1 forced", "deliver"}},
		}},
		{Name: "after a send, known dependencies force nothing", Steps: []protocoltest.Step{
			{In: recv(1, 0, fdasPB(0, 2)), Want: []string{"deliver"}},
			{In: send(1, 2), Want: []string{"piggyback dv=2,1,0"}},
			{In: recv(1, 0, fdasPB(0, 2)), Want: []string{"deliver"}},
			{In: recv(1, 0, fdasPB(0, 1, 1, 1)), Want: []string{"deliver"}},
		}},
		{Name: "a checkpoint clears sent", Steps: []protocoltest.Step{
			{In: send(1, 2), Want: []string{"piggyback dv=0,1,0"}},
			{In: tick(1), Want: []string{"checkpoint 1 basic"}},
			{In: recv(1, 0, fdasPB(0, 4)), Want: []string{"deliver"}},
			{In: protocoltest.Down(tick(1)), Want: nil},
		}},
	})
}

func TestFDASRefusesFailures(t *testing.T) { protocoltest.CheckRefusesFailures(t, newFDAS) }

// fdasReference is FDAS from its meaning: a receipt is preceded by a forced
// checkpoint iff its receiver has sent in its current interval and the
// send's causal past holds a later interval of some process than the
// receiver's causal past does.
type fdasReference struct{}

// fdasKnown is the latest interval of k with an op in the causal past of
// event e, or None.
func fdasKnown(s *protocoltest.Sim, e, k int32) int32 {
	x := int32(trace.None)
	if e == trace.None {
		return x
	}
	for i := range s.Events {
		if ev := &s.Events[i]; ev.P == k && ev.Kind.IsOp() && ev.Interval > x && s.Before(int32(i), e) {
			x = ev.Interval
		}
	}
	return x
}

func (fdasReference) Forced(s *protocoltest.Sim, p, send int32) bool {
	sent := false
	for i := range s.Events {
		if ev := &s.Events[i]; ev.P == p && ev.Kind == trace.Send && ev.Interval == s.Interval(p) {
			sent = true
		}
	}
	if !sent {
		return false
	}
	for k := range s.Ckpts {
		if fdasKnown(s, send, int32(k)) > fdasKnown(s, s.Last(p), int32(k)) {
			return true
		}
	}
	return false
}

func (fdasReference) Stamp(*protocoltest.Sim, int32, trace.Kind, trace.CkptType, int32) int32 {
	return 0
}

func newFDAS(tr *trace.Trace) (replay.Algorithm, error) { return algorithms.New(fdas.Name, "", tr) }

func TestFDASAgainstReference(t *testing.T) {
	protocoltest.CheckAgainstReference(t, newFDAS, fdasReference{})
}

func TestFDASPromise(t *testing.T) {
	protocoltest.CheckPromise(t, newFDAS, protocoltest.Trackable, protocoltest.ZCycleFree)
}

func TestFDASNoForcedMutantBreaksPromise(t *testing.T) {
	protocoltest.CheckMutantBreaks(t, newFDAS,
		func(a replay.Algorithm) replay.Algorithm { return protocoltest.NoForced(a) }, protocoltest.Trackable)
}

// TestFDASGolden replays small traces; testdata/fdas/NAME.run.jsonl holds each
// run (rewrite with -update).
func TestFDASGolden(t *testing.T) {
	protocoltest.CheckGolden(t, "fdas", newFDAS, []protocoltest.GoldenCase{
		// P1 sends m1 to P2, then m0 brings P1 its first dependency on
		// P0: forced checkpoint, or the Z-path [m0 m1] would go
		// untracked.
		{Name: "after-send", Trace: tracetest.NewBuilder("P0", "P1", "P2").
			Send(0.1, "P1", "P2", "m1").
			Send(0.2, "P0", "P1", "m0").
			Recv(0.3, "P1", "m0").Recv(0.4, "P2", "m1"), Want: protocoltest.Counts{Basic: 0, Forced: 1}},
		// The same receipt before any send of P1's interval: nothing.
		{Name: "before-send", Trace: tracetest.NewBuilder("P0", "P1", "P2").
			Send(0.2, "P0", "P1", "m0").
			Recv(0.3, "P1", "m0").
			Send(0.35, "P1", "P2", "m1").Recv(0.4, "P2", "m1"), Want: protocoltest.Counts{Basic: 0, Forced: 0}},
		// A dependency P1 already has (m2's) forces nothing, even after
		// a send; P0's tick makes m3's new. P0, having sent m3, then
		// gets its first news of P1 with m1: forced too.
		{Name: "known-then-new", Trace: tracetest.NewBuilder("P0", "P1").
			Send(0.1, "P0", "P1", "m0").Recv(0.2, "P1", "m0").
			Send(0.3, "P1", "P0", "m1").
			Send(0.35, "P0", "P1", "m2").Recv(0.4, "P1", "m2").
			Checkpoint(0.45, "P0").
			Send(0.5, "P0", "P1", "m3").Recv(0.6, "P1", "m3").
			Recv(0.7, "P0", "m1"), Want: protocoltest.Counts{Basic: 1, Forced: 2}},
	})
}

func BenchmarkReplayFDAS100K(b *testing.B) { protocoltest.BenchReplay(b, newFDAS, 100_000) }

func BenchmarkReplayFDAS1M(b *testing.B) { protocoltest.BenchReplay(b, newFDAS, 1_000_000) }
