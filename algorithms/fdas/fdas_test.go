package fdas

import (
	"testing"

	"github.com/ckpt-dev/ckpt/algorithms/protocoltest"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// pb builds a piggyback D of three processes from (process, value)
// pairs, the other entries 0.
func pb(entries ...int32) trace.Piggyback {
	p := trace.NewPiggyback()
	p.CIC = &trace.CIC{LC: trace.None, DV: make([]int32, 3)}
	for i := 0; i+1 < len(entries); i += 2 {
		p.CIC.DV[entries[i]] = entries[i+1]
	}
	return p
}

// TestStep: the rules of the package comment, input by input. D entries
// are one more than intervals (checkpoint 0 applies the checkpoint rule).
func TestStep(t *testing.T) {
	tick, send, recv := protocoltest.Tick, protocoltest.Send, protocoltest.Recv
	protocoltest.CheckSteps(t, newFDAS, []protocoltest.StepCase{
		{Name: "piggyback D, own entry counting checkpoints", Steps: []protocoltest.Step{
			{In: send(0, 1), Want: []string{"piggyback dv=1,0,0"}},
			{In: tick(0), Want: []string{"checkpoint 1 basic"}},
			{In: send(0, 2), Want: []string{"piggyback dv=2,0,0"}},
		}},
		{Name: "no send in the interval: a new dependency forces nothing", Steps: []protocoltest.Step{
			{In: recv(1, 0, pb(0, 3)), Want: []string{"deliver"}},
			{In: send(1, 2), Want: []string{"piggyback dv=3,1,0"}},
		}},
		{Name: "after a send, a new dependency forces a checkpoint first", Steps: []protocoltest.Step{
			{In: send(1, 2), Want: []string{"piggyback dv=0,1,0"}},
			{In: recv(1, 0, pb(0, 1)), Want: []string{"checkpoint 1 forced", "deliver"}},
			{In: send(1, 2), Want: []string{"piggyback dv=1,2,0"}},
		}},
		// Interval 0 of P0 is a dependency P1 did not have: the offset
		// makes it one (TestIntervalZeroIsADependency).
		{Name: "first news of a process is new", Steps: []protocoltest.Step{
			{In: send(1, 2), Want: []string{"piggyback dv=0,1,0"}},
			{In: recv(1, 2, pb(2, 1)), Want: []string{"checkpoint 1 forced", "deliver"}},
		}},
		{Name: "after a send, known dependencies force nothing", Steps: []protocoltest.Step{
			{In: recv(1, 0, pb(0, 2)), Want: []string{"deliver"}},
			{In: send(1, 2), Want: []string{"piggyback dv=2,1,0"}},
			{In: recv(1, 0, pb(0, 2)), Want: []string{"deliver"}},
			{In: recv(1, 0, pb(0, 1, 1, 1)), Want: []string{"deliver"}},
		}},
		{Name: "a checkpoint clears sent", Steps: []protocoltest.Step{
			{In: send(1, 2), Want: []string{"piggyback dv=0,1,0"}},
			{In: tick(1), Want: []string{"checkpoint 1 basic"}},
			{In: recv(1, 0, pb(0, 4)), Want: []string{"deliver"}},
			{In: protocoltest.Down(tick(1)), Want: nil},
		}},
	})
}

func TestRefusesFailures(t *testing.T) { protocoltest.CheckRefusesFailures(t, newFDAS) }

// reference is FDAS from its meaning: a receipt is preceded by a forced
// checkpoint iff its receiver has sent in its current interval and the
// send's causal past holds a later interval of some process than the
// receiver's causal past does.
type reference struct{}

// known is the latest interval of k with an op in the causal past of
// event e, or None.
func known(s *protocoltest.Sim, e, k int32) int32 {
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

func (reference) Forced(s *protocoltest.Sim, p, send int32) bool {
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
		if known(s, send, int32(k)) > known(s, s.Last(p), int32(k)) {
			return true
		}
	}
	return false
}

func (reference) Stamp(*protocoltest.Sim, int32, trace.Kind, trace.CkptType, int32) int32 { return 0 }

func newFDAS(tr *trace.Trace) (replay.Algorithm, error) { return New(tr) }

func TestAgainstReference(t *testing.T) {
	protocoltest.CheckAgainstReference(t, newFDAS, reference{})
}

func TestPromise(t *testing.T) {
	protocoltest.CheckPromise(t, newFDAS, protocoltest.Trackable, protocoltest.ZCycleFree)
}

func TestNoForcedMutantBreaksPromise(t *testing.T) {
	protocoltest.CheckMutantBreaks(t, newFDAS,
		func(a replay.Algorithm) replay.Algorithm { return protocoltest.NoForced(a) }, protocoltest.Trackable)
}

// TestIntervalZeroIsADependency: with D[self] starting at 0, the issue's
// other reading, "interval 0 of k" and "nothing of k" are both 0, a
// first dependency on a process's initial interval forces nothing, and
// Z-paths from initial checkpoints go untracked.
func TestIntervalZeroIsADependency(t *testing.T) {
	protocoltest.CheckMutantBreaks(t, newFDAS, func(a replay.Algorithm) replay.Algorithm {
		f := a.(*FDAS)
		for p := range f.procs {
			f.procs[p].d[p] = 0
		}
		return f
	}, protocoltest.Trackable)
}
