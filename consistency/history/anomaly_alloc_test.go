package history_test

import (
	"testing"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/internal/race"
	"github.com/ckpt-dev/ckpt/trace"
)

// renumberedRun is one process's n internal ops, every event carrying a
// seq one past its position: a SeqMismatch on every event, the way a run
// renumbered by a foreign tool breaks.
func renumberedRun(n int) *trace.Run {
	run := &trace.Run{Name: "renumbered", Algorithm: "ms", Processes: []string{"P0"}}
	for i := range n {
		e := trace.NewRunEvent(trace.Internal, trace.Time(i), 0)
		e.Op, e.Seq = int32(i), int32(i)+1
		run.Events = append(run.Events, e)
	}
	return run
}

// An anomaly past the MaxKept of its kind is only counted: building a run
// whose every event is malformed the same way costs no more allocations
// for ten times the events. Measured when the test was written: formatting
// each witness eagerly (and its seq list) cost about 3.5 allocations per
// event, 224 allocations for 80 events and 2753 for 800; lazily, 104 for
// both. The sizes are 320 and 3,200 events since the final state keeps a
// bit per event: for 80 events its 16 bytes fit the stack, one allocation
// fewer than any larger run.
func TestAnomaliesPastTheCapDoNotAllocate(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector allocates on its own")
	}
	allocs := func(n int) float64 {
		run := renumberedRun(n)
		m := history.Build(run, nil, history.MS)
		if _, got := m.Anomalies(history.SeqMismatch); got != n {
			t.Fatalf("%d events: %d seq mismatches counted, want %d", n, got, n)
		}
		return testing.AllocsPerRun(10, func() { history.Build(run, nil, history.MS) })
	}
	small, large := allocs(16*history.MaxKept), allocs(160*history.MaxKept)
	t.Logf("%d events: %.0f allocations; %d events: %.0f", 16*history.MaxKept, small, 160*history.MaxKept, large)
	if large > small {
		t.Errorf("building %d malformed events takes %.0f allocations, %d takes %.0f: past the cap, anomalies still allocate",
			16*history.MaxKept, small, 160*history.MaxKept, large)
	}
}

// The kept witnesses of a renumbered run read as they always did.
func TestSeqMismatchWitness(t *testing.T) {
	m := history.Build(renumberedRun(3*history.MaxKept), nil, history.MS)
	as, n := m.Anomalies(history.SeqMismatch)
	if n != 3*history.MaxKept || len(as) != history.MaxKept {
		t.Fatalf("%d seq mismatches, %d kept; want %d, %d", n, len(as), 3*history.MaxKept, history.MaxKept)
	}
	want := "event 7 carries seq 8"
	if as[7].Message != want || as[7].Because != "the run is not well formed: "+want {
		t.Errorf("witness %q — %q, want %q — the run is not well formed: %s", as[7].Message, as[7].Because, want, want)
	}
}

// BenchmarkRenumberedRun builds a run whose every event is a SeqMismatch.
func BenchmarkRenumberedRun(b *testing.B) {
	run := renumberedRun(100000)
	b.ReportAllocs()
	for b.Loop() {
		history.Build(run, nil, history.MS)
	}
}
