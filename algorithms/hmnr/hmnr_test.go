package hmnr

import (
	"testing"

	"github.com/ckpt-dev/ckpt/algorithms/protocoltest"
	"github.com/ckpt-dev/ckpt/trace"
)

// ent is one process's part of a piggyback: taken, greater, ckpt.
type ent struct {
	taken, greater bool
	ckpt           int32
}

func pb(lc int32, es ...ent) trace.Piggyback {
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

func mustNew(t protocoltest.T, tr *trace.Trace) *HMNR {
	t.Helper()
	a, err := New(tr)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestStep: the rules of the package comment, input by input. Piggybacks
// render as lc, the ckpt vector, and taken and greater as one bit per
// process.
func TestStep(t *testing.T) {
	tick, send, recv := protocoltest.Tick, protocoltest.Send, protocoltest.Recv
	none := ent{}
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
			{In: recv(0, 1, pb(0, ent{true, false, 1}, none, none)), Want: []string{"checkpoint 1 forced sn=1", "deliver"}},
		}},
		{Name: "condition 1 needs taken", Steps: []protocoltest.Step{
			{In: recv(0, 1, pb(0, ent{false, false, 1}, none, none)), Want: []string{"deliver"}},
		}},
		// Condition 2: a higher lc, and P0 sent in this interval to P2,
		// whose clock the sender knows to be lower.
		{Name: "condition 2 forces", Steps: []protocoltest.Step{
			{In: send(0, 2), Want: []string{"piggyback lc=0 ckpt=1,0,0 taken=011 greater=011"}},
			{In: recv(0, 1, pb(1, none, none, ent{false, true, 0})), Want: []string{"checkpoint 1 forced sn=1", "deliver"}},
			// lc stays 1 (= m.lc after the forced one), so greater
			// merges with &&: P1's drops (the sender's own), P2's stays.
			{In: send(0, 2), Want: []string{"piggyback lc=1 ckpt=2,0,0 taken=011 greater=001"}},
		}},
		{Name: "condition 2 needs greater of a destination", Steps: []protocoltest.Step{
			{In: send(0, 2), Want: []string{"piggyback lc=0 ckpt=1,0,0 taken=011 greater=011"}},
			{In: recv(0, 1, pb(1, ent{false, true, 0}, ent{}, ent{false, false, 0})), Want: []string{"deliver"}},
			// lc := m.lc, greater := m.greater (own false).
			{In: send(0, 2), Want: []string{"piggyback lc=1 ckpt=1,0,0 taken=011 greater=000"}},
		}},
		{Name: "condition 2 needs a send in the interval", Steps: []protocoltest.Step{
			{In: recv(0, 1, pb(1, none, none, ent{false, true, 0})), Want: []string{"deliver"}},
		}},
		// ckpt and taken: newer values replace, equal ones or-merge.
		{Name: "ckpt and taken merge", Steps: []protocoltest.Step{
			{In: recv(0, 1, pb(0, none, ent{false, false, 2}, ent{true, false, 0})), Want: []string{"deliver"}},
			{In: send(0, 1), Want: []string{"piggyback lc=0 ckpt=1,2,0 taken=001 greater=000"}},
			{In: recv(0, 1, pb(0, none, ent{true, false, 2}, ent{false, false, 0})), Want: []string{"deliver"}},
			{In: send(0, 1), Want: []string{"piggyback lc=0 ckpt=1,2,0 taken=011 greater=000"}},
			{In: protocoltest.Down(tick(0)), Want: nil},
		}},
	})
}

func TestRefusesFailures(t *testing.T) { protocoltest.CheckRefusesFailures(t, newHMNR) }

// TestShortPiggyback: a piggyback vector shorter or longer than the
// number of processes reads as zeros beyond its end, never panics.
func TestShortPiggyback(t *testing.T) {
	a := mustNew(t, protocoltest.Procs(t, "P0", "P1", "P2"))
	short := pb(5, ent{true, true, 1})
	long := pb(0, ent{}, ent{}, ent{}, ent{true, true, 9})
	err := protocoltest.Steps(a, []protocoltest.Step{
		{In: protocoltest.Recv(0, 1, short), Want: []string{"checkpoint 1 forced sn=1", "deliver"}},
		{In: protocoltest.Recv(0, 1, long), Want: []string{"deliver"}},
	})
	if err != nil {
		t.Fatal(err)
	}
}
