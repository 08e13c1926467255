package shrink

import (
	"slices"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen/gentest"
)

// has reports whether tr has an event of kind k at process p, by name.
func has(tr *trace.Trace, k trace.Kind, p string) bool {
	for _, ev := range tr.Events {
		if ev.Kind == k && tr.Processes[ev.P] == p {
			return true
		}
	}
	return false
}

// TestShrinkToCore: a predicate that needs a message from P0 to P2 and a
// fail of P2 after its receipt shrinks a noisy trace to exactly those
// three events on two processes.
func TestShrinkToCore(t *testing.T) {
	tr, err := tracetest.NewBuilder("P0", "P1", "P2").
		Internal(0.1, "P1").
		Send(0.2, "P1", "P0", "noise").
		Checkpoint(0.3, "P0").
		Send(0.4, "P0", "P2", "m").
		Recv(0.5, "P0", "noise").
		Recv(0.6, "P2", "m").
		Flush(0.7, "P2").
		Fail(0.8, "P2").
		Internal(0.9, "P1").
		Build()
	if err != nil {
		t.Fatal(err)
	}
	fails := func(c *trace.Trace) bool {
		recv := -1
		for i, ev := range c.Events {
			if ev.Kind == trace.Recv && c.Msgs[ev.Msg] == "m" && c.Processes[ev.P] == "P2" {
				recv = i
			}
			if ev.Kind == trace.Fail && c.Processes[ev.P] == "P2" && recv >= 0 {
				return true
			}
		}
		return false
	}
	res := Trace(tr, fails, 1000)
	got := res.Trace
	if !fails(got) {
		t.Fatal("shrunk trace no longer fails")
	}
	if len(got.Events) != 3 || len(got.Processes) != 2 || !slices.Equal(got.Msgs, []string{"m"}) {
		t.Errorf("shrunk to %d events over %v, messages %v; want send, recv, fail over [P0 P2]", len(got.Events), got.Processes, got.Msgs)
	}
	if res.Tests == 0 || res.Tests > 1000 {
		t.Errorf("%d tests", res.Tests)
	}
}

// TestShrinkProperties: on random traces and a predicate ("the first
// process with a checkpoint tick has one, and some process a fail"),
// shrinking returns a valid trace that still fails, made of just those
// two events. (The predicate named P1 once: some runs drew no trace
// with both, and the test failed as vacuous.)
func TestShrinkProperties(t *testing.T) {
	shrunk := 0
	rapid.Check(t, func(rt *rapid.T) {
		tr := gentest.Trace().Draw(rt, "trace")
		ticker := ""
		if i := slices.IndexFunc(tr.Events, func(e trace.Event) bool { return e.Kind == trace.Checkpoint }); i >= 0 {
			ticker = tr.Processes[tr.Events[i].P]
		}
		fails := func(c *trace.Trace) bool {
			return has(c, trace.Checkpoint, ticker) && slices.ContainsFunc(c.Events, func(e trace.Event) bool { return e.Kind == trace.Fail })
		}
		if !fails(tr) {
			return
		}
		shrunk++
		res := Trace(tr, fails, 10000)
		got := res.Trace
		if err := trace.Validate(clone(got)); err != nil {
			rt.Fatalf("invalid: %v", err)
		}
		if !fails(got) || len(got.Events) > len(tr.Events) {
			rt.Fatalf("shrunk to %d events (from %d), fails=%v", len(got.Events), len(tr.Events), fails(got))
		}
		if len(got.Events) != 2 {
			rt.Fatalf("shrunk to %d events, want the tick and one fail", len(got.Events))
		}
	})
	if shrunk == 0 {
		t.Fatal("no drawn trace had a tick of P1 and a fail: vacuous")
	}
}

// TestBudget: the predicate is called at most maxTests times.
func TestBudget(t *testing.T) {
	tr := gentest.Trace().Filter(func(tr *trace.Trace) bool { return len(tr.Events) > 20 }).Example(1)
	calls := 0
	Trace(tr, func(*trace.Trace) bool { calls++; return true }, 7)
	if calls > 7 {
		t.Errorf("%d calls, budget 7", calls)
	}
}

func clone(t *trace.Trace) *trace.Trace {
	c := *t
	c.Events = slices.Clone(t.Events)
	return &c
}

// TestShrinkKeepsLabels: a shrunk trace's events keep their labels (an
// event's label indexes its trace's Labels table, which the candidate
// traces must carry).
func TestShrinkKeepsLabels(t *testing.T) {
	tr, err := tracetest.NewBuilder("P0", "P1").
		Internal(0.1, "P1").Label("noise").
		Send(0.2, "P0", "P1", "m").Label("request").
		Recv(0.3, "P1", "m").
		Fail(0.4, "P1").Label("crash").
		Build()
	if err != nil {
		t.Fatal(err)
	}
	fails := func(c *trace.Trace) bool {
		for i := range c.Events {
			if c.Events[i].Kind == trace.Fail {
				return c.Label(&c.Events[i]) == "crash"
			}
		}
		return false
	}
	got := Trace(tr, fails, 1000).Trace
	if len(got.Events) != 1 || got.Label(&got.Events[0]) != "crash" {
		t.Errorf("shrunk to %d events, first labelled %q; want the fail labelled crash", len(got.Events), got.Label(&got.Events[0]))
	}
}
