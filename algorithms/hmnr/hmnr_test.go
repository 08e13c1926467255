package hmnr

import (
	"errors"
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
	p.Sn = lc
	for _, e := range es {
		var f int32
		if e.taken {
			f |= flagTaken
		}
		if e.greater {
			f |= flagGreater
		}
		p.VT = append(p.VT, trace.VTEntry{Inc: f, Count: e.ckpt})
	}
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

func threeProcs(t *testing.T) *trace.Trace {
	t.Helper()
	tr, err := trace.NewBuilder("P0", "P1", "P2").Build()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestStep: the rules of the package comment, input by input. Piggyback
// vectors render as vt<k>=<flags>:<ckpt>, flags taken 1 | greater 2.
func TestStep(t *testing.T) {
	tick, send, recv := protocoltest.Tick, protocoltest.Send, protocoltest.Recv
	none := ent{}
	tests := []struct {
		name  string
		steps []protocoltest.Step
	}{
		// Checkpoint 0 went through the procedure: taken and greater
		// set for the others, ckpt[i] = 1, lc = 0.
		{"initial state and a basic checkpoint", []protocoltest.Step{
			{In: send(1, 0), Want: []string{"piggyback sn=0 vt0=3:0 vt1=0:1 vt2=3:0"}},
			{In: tick(1), Want: []string{"checkpoint 1 basic sn=1"}},
			{In: send(1, 0), Want: []string{"piggyback sn=1 vt0=3:0 vt1=0:2 vt2=3:0"}},
		}},
		// Condition 1: m knows P0's current checkpoint (ckpt 1) through
		// a checkpoint (taken): a Z-cycle would close.
		{"condition 1 forces", []protocoltest.Step{
			{In: recv(0, 1, pb(0, ent{true, false, 1}, none, none)), Want: []string{"checkpoint 1 forced sn=1", "deliver"}},
		}},
		{"condition 1 needs taken", []protocoltest.Step{
			{In: recv(0, 1, pb(0, ent{false, false, 1}, none, none)), Want: []string{"deliver"}},
		}},
		// Condition 2: a higher lc, and P0 sent in this interval to P2,
		// whose clock the sender knows to be lower.
		{"condition 2 forces", []protocoltest.Step{
			{In: send(0, 2), Want: []string{"piggyback sn=0 vt0=0:1 vt1=3:0 vt2=3:0"}},
			{In: recv(0, 1, pb(1, none, none, ent{false, true, 0})), Want: []string{"checkpoint 1 forced sn=1", "deliver"}},
			// lc stays 1 (= m.lc after the forced one), so greater
			// merges with &&: P1's drops (the sender's own), P2's stays.
			{In: send(0, 2), Want: []string{"piggyback sn=1 vt0=0:2 vt1=1:0 vt2=3:0"}},
		}},
		{"condition 2 needs greater of a destination", []protocoltest.Step{
			{In: send(0, 2), Want: []string{"piggyback sn=0 vt0=0:1 vt1=3:0 vt2=3:0"}},
			{In: recv(0, 1, pb(1, ent{false, true, 0}, ent{}, ent{false, false, 0})), Want: []string{"deliver"}},
			// lc := m.lc, greater := m.greater (own false).
			{In: send(0, 2), Want: []string{"piggyback sn=1 vt0=0:1 vt1=1:0 vt2=1:0"}},
		}},
		{"condition 2 needs a send in the interval", []protocoltest.Step{
			{In: recv(0, 1, pb(1, none, none, ent{false, true, 0})), Want: []string{"deliver"}},
		}},
		// ckpt and taken: newer values replace, equal ones or-merge.
		{"ckpt and taken merge", []protocoltest.Step{
			{In: recv(0, 1, pb(0, none, ent{false, false, 2}, ent{true, false, 0})), Want: []string{"deliver"}},
			{In: send(0, 1), Want: []string{"piggyback sn=0 vt0=0:1 vt1=0:2 vt2=1:0"}},
			{In: recv(0, 1, pb(0, none, ent{true, false, 2}, ent{false, false, 0})), Want: []string{"deliver"}},
			{In: send(0, 1), Want: []string{"piggyback sn=0 vt0=0:1 vt1=1:2 vt2=1:0"}},
			{In: protocoltest.Down(tick(0)), Want: nil},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := protocoltest.Steps(mustNew(t, threeProcs(t)), tc.steps); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestRefusesFailures(t *testing.T) {
	tr, err := trace.NewBuilder("P0", "P1").Fail(0.2, "P1").Build()
	if err != nil {
		t.Fatal(err)
	}
	var ie *trace.InputError
	if _, err := New(tr); !errors.As(err, &ie) || ie.Event != 0 {
		t.Fatalf("err = %v, want an input error at event 0", err)
	}
}

// TestShortPiggyback: a piggyback vector shorter or longer than the
// number of processes reads as zeros beyond its end, never panics.
func TestShortPiggyback(t *testing.T) {
	a := mustNew(t, threeProcs(t))
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
