package gentest

import (
	"flag"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/trace"
)

// TestTraceValid: every drawn trace validates (build would t.Fatalf
// otherwise) and stays within the advertised sizes.
func TestTraceValid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tr := Trace().Draw(t, "trace")
		if n := len(tr.Processes); n < MinProcs || n > MaxProcs {
			t.Fatalf("%d processes", n)
		}
		var fails, steps int
		for _, e := range tr.Events {
			if e.Kind == trace.Fail {
				fails++
			}
			if e.Kind.IsOp() || e.Kind == trace.Checkpoint || e.Kind == trace.Flush {
				steps++
			}
		}
		if fails > MaxFailures {
			t.Fatalf("%d failures", fails)
		}
		if steps > 2*MaxSteps {
			t.Fatalf("%d steps", steps)
		}
		if err := trace.Validate(tr); err != nil {
			t.Fatal(err)
		}
	})
}

// TestTraceCoverage: over many draws, every kind of event, concurrent
// failures (a fail within the restart delay of another) and unreceived
// messages all occur, so properties built on Trace exercise them.
func TestTraceCoverage(t *testing.T) {
	var seen [trace.Fail + 1]int
	concurrent, unreceived := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		tr := Trace().Draw(t, "trace")
		restart := tr.Params.WithDefaults().RestartDelay
		var lastFail trace.Time = -1 << 62
		for _, e := range tr.Events {
			seen[e.Kind]++
			if e.Kind == trace.Fail {
				if e.T-lastFail < restart {
					concurrent++
				}
				lastFail = e.T
			}
		}
		for _, m := range tr.Messages {
			if m.Recv == trace.None {
				unreceived++
			}
		}
	})
	for k := trace.Send; k <= trace.Fail; k++ {
		if seen[k] == 0 {
			t.Errorf("no %s event drawn", k)
		}
	}
	if concurrent == 0 || unreceived == 0 {
		t.Errorf("concurrent failures %d, unreceived messages %d: want both > 0", concurrent, unreceived)
	}
}

func TestBuildKeepsStepsValid(t *testing.T) {
	// Shrinking deletes steps and lowers numbers; any subset of steps
	// must still build. Here: a recv step with nothing pending becomes an
	// internal op, and a failure past the end lands at the end.
	tests := []struct {
		name  string
		steps []step
		fails []failure
		want  []trace.Kind
	}{
		{"recv with nothing pending", []step{{kind: 5}}, nil, []trace.Kind{trace.Internal}},
		{"send then recv", []step{{kind: 2, p: 1}, {kind: 6, arg: 9}}, nil, []trace.Kind{trace.Send, trace.Recv}},
		{"failure at end", []step{{kind: 0}}, []failure{{at: 1, p: 1, down: 2}}, []trace.Kind{trace.Internal, trace.Fail}},
		{"timers", []step{{kind: 8}, {kind: 9}}, nil, []trace.Kind{trace.Checkpoint, trace.Flush}},
	}
	for _, tt := range tests {
		tr, err := build(2, tt.steps, tt.fails, false, trace.Params{})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var got []trace.Kind
		for _, e := range tr.Events {
			got = append(got, e.Kind)
		}
		if len(got) != len(tt.want) {
			t.Fatalf("%s: kinds %v, want %v", tt.name, got, tt.want)
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Fatalf("%s: kinds %v, want %v", tt.name, got, tt.want)
			}
		}
	}
	tr, err := build(3, []step{{kind: 3, p: 0, arg: 0}, {kind: 3, p: 2, arg: 1}}, nil, true, trace.Params{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Events[0].To != 1 || tr.Events[1].To != 1 || len(tr.Events) != 4 {
		t.Fatalf("receiver choice or drain wrong: %+v", tr.Events)
	}
}

func TestConfigValid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := Config().Draw(t, "config")
		if err := c.Validate(); err != nil {
			t.Fatal(err)
		}
	})
}

// recordTB is a rapid.TB that records failure instead of failing, so a
// test can run rapid.Check on a property meant to fail and look at the
// counterexample rapid shrinks to.
type recordTB struct{ failed bool }

func (r *recordTB) Helper()               {}
func (r *recordTB) Name() string          { return "ShrinkProbe" }
func (r *recordTB) Logf(string, ...any)   {}
func (r *recordTB) Log(...any)            {}
func (r *recordTB) Skipf(string, ...any)  {}
func (r *recordTB) Skip(...any)           {}
func (r *recordTB) SkipNow()              {}
func (r *recordTB) Errorf(string, ...any) { r.failed = true }
func (r *recordTB) Error(...any)          { r.failed = true }
func (r *recordTB) Fatalf(string, ...any) { r.failed = true }
func (r *recordTB) Fatal(...any)          { r.failed = true }
func (r *recordTB) FailNow()              { r.failed = true }
func (r *recordTB) Fail()                 { r.failed = true }
func (r *recordTB) Failed() bool          { return r.failed }

// TestShrinks: a property that fails whenever a process receives after
// it failed must shrink to the minimal witness — the receiver's failure,
// a send, the receive — with nothing else around it. The search is
// random, but rapid shrinks every counterexample it finds to this one.
func TestShrinks(t *testing.T) {
	f := flag.Lookup("rapid.nofailfile")
	old := f.Value.String()
	if err := f.Value.Set("true"); err != nil {
		t.Fatal(err)
	}
	defer f.Value.Set(old)
	var last *trace.Trace
	tb := &recordTB{}
	rapid.Check(tb, func(rt *rapid.T) {
		tr := Trace().Draw(rt, "trace")
		failed := make([]bool, len(tr.Processes))
		for _, e := range tr.Events {
			if e.Kind == trace.Fail {
				failed[e.P] = true
			}
			if e.Kind == trace.Recv && failed[e.P] {
				last = tr
				rt.Fatalf("recv after fail")
			}
		}
	})
	if !tb.failed || last == nil {
		t.Fatal("rapid found no counterexample")
	}
	var kinds []string
	for _, e := range last.Events {
		kinds = append(kinds, e.Kind.String())
	}
	// The failure shrinks to position 0, before the send.
	if got := strings.Join(kinds, " "); got != "fail send recv" || len(last.Processes) != MinProcs {
		t.Errorf("shrank to %d processes, events %q; want 2 processes, \"fail send recv\"", len(last.Processes), got)
	}
}
