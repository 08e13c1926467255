package consistency

import (
	"testing"

	"github.com/ckpt-dev/ckpt/internal/race"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// renumberedRun is one process's n internal ops, every event carrying a
// seq one past its position: a broken form at every event, the way a run
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

// A violation past the first maxWitnesses of a property is only
// counted, never formatted: streaming a run whose every event breaks the
// form the same way costs, per event past the cap, at most the boxing
// of the violation's two arguments (seqs past 255 are allocated).
// Formatting each witness (its message, because-chain and seq list)
// would add at least three more: measured when the test was written
// (then in package history), eager formatting cost about 3.5
// allocations per event beyond the arguments.
func TestViolationsPastTheCapAreNotFormatted(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector allocates on its own")
	}
	allocs := func(n int) float64 {
		run := renumberedRun(n)
		return testing.AllocsPerRun(10, func() {
			s := NewStream(run, nil, len(run.Events))
			for i := range run.Events {
				s.Add(&run.Events[i])
			}
		})
	}
	small, large := allocs(16*maxWitnesses), allocs(160*maxWitnesses)
	perEvent := (large - small) / float64(144*maxWitnesses)
	t.Logf("%d events: %.0f allocations; %d events: %.0f (%.2f per event)", 16*maxWitnesses, small, 160*maxWitnesses, large, perEvent)
	if perEvent > 2 {
		t.Errorf("streaming %d malformed events takes %.0f allocations, %d takes %.0f: %.2f per violation past the cap, more than its two arguments",
			16*maxWitnesses, small, 160*maxWitnesses, large, perEvent)
	}
}

// The kept witnesses of a renumbered run read as they always did (60
// seq mismatches, and no end event).
func TestSeqMismatchWitness(t *testing.T) {
	r := Check(renumberedRun(3*maxWitnesses), nil)
	p := r.Properties[equivalenceAt]
	if p.Status != report.Fail || len(p.Violations) != maxWitnesses || p.Note != "61 violations, the first 20 shown" {
		t.Fatalf("equivalence %s with %d witnesses (%s)", p.Status, len(p.Violations), p.Note)
	}
	want := "event 7 carries seq 8"
	if v := p.Violations[7]; v.Message != want || v.Because != "the run is not well formed: "+want {
		t.Errorf("witness %q — %q, want %q — the run is not well formed: %s", v.Message, v.Because, want, want)
	}
}

// BenchmarkRenumberedRun checks a run whose every event breaks the form.
func BenchmarkRenumberedRun(b *testing.B) {
	run := renumberedRun(100000)
	b.ReportAllocs()
	for b.Loop() {
		Check(run, nil)
	}
}

// TestViaLogOnlyMS: a receipt via the log in a PK or placement-protocol
// run (issue 28: nobody judged it, and it skipped the mailbox checks)
// fails log-replay-rules; only MS replays from a message log.
func TestViaLogOnlyMS(t *testing.T) {
	viaLog := func(alg string, src func(*testing.T) *trace.Trace) func(t *testing.T) *trace.Run {
		return func(t *testing.T) *trace.Run {
			run := protocolRun(t, alg, "", src(t))
			return forge(t, run, firstOf(t, run, trace.Recv), trace.Recv, func(e *trace.RunEvent) { e.Via = trace.ViaLog })
		}
	}
	lrr := report.LogReplayRules
	checkRuleCases(t, []ruleCase{
		{name: "pk", src: retransmitTrace, prop: lrr, status: fail, run: viaLog("pk", retransmitTrace),
			witness: "P1 receives m1 at seq 9 via the log", besides: []string{"is left in P1's mailbox"}},
		{name: "bcs", src: forcedTrace, prop: lrr, status: fail, run: viaLog("bcs", forcedTrace),
			witness: "BCS never replays a receipt"},
		{name: "coordinated", src: plainTrace, prop: lrr, status: fail, run: viaLog("coordinated", plainTrace),
			witness: "receives m at seq"},
	})
}
