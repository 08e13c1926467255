package consistency

import (
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/algorithms/mutants"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// The checkpoint-placement protocols' promises (promises.go) on small
// traces, replayed through each protocol and through its test-only
// mutants (algorithms/mutants): the runs are built here, in test code,
// and kept as testdata/PROPERTY/{pass,fail} like every case.

// zCycleTrace invites a Z-cycle: P0's checkpoint comes between its
// receipt of m2 and its send of m1, which reaches P1 after P1 sent m2.
// BCS, HMNR and FDAS force a checkpoint at P1 before it delivers m1.
func zCycleTrace(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1").
		Send(1, "P1", "P0", "m2").Recv(2, "P0", "m2").Checkpoint(3, "P0").
		Send(4, "P0", "P1", "m1").Recv(5, "P1", "m1"))
}

// rdtTrace invites an untrackable dependency without a Z-cycle: m1, sent
// after P0's checkpoint 1, reaches P1 after P1 sent m2 to P2, which P2
// receives before its checkpoint 1. The Z-path [m1 m2] runs from P0's
// checkpoint 1 to P2's, and no causal path does: unless P1 checkpoints
// before delivering m1, as FDAS does.
func rdtTrace(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1", "P2").
		Send(1, "P1", "P2", "m2").Checkpoint(1.5, "P0").Send(2, "P0", "P1", "m1").
		Recv(2.5, "P2", "m2").Recv(3, "P1", "m1").Checkpoint(4, "P2"))
}

// roundTrace: P0's tick starts a round at t=1; P0 sends m right after,
// and m would reach P1 before the request does (control delay 0.5), so
// only the blocking keeps m out of round 1's line. P1's ticks are
// skipped (it is no initiator).
func roundTrace(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1").
		Params(trace.Params{ControlDelay: trace.Second / 2}).
		Send(0.5, "P1", "P0", "m0").Recv(0.8, "P0", "m0").
		Checkpoint(1, "P0").Send(1.1, "P0", "P1", "m").Recv(1.2, "P1", "m").
		Checkpoint(1.3, "P1").Send(3, "P1", "P0", "m3").Recv(3.5, "P0", "m3"))
}

func mustBuild(t *testing.T, b *tracetest.Builder) *trace.Trace {
	t.Helper()
	tr, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// protocolRun replays tr through protocol name in variant ("" or one of
// its algorithms/mutants).
func protocolRun(t *testing.T, name, variant string, tr *trace.Trace) *trace.Run {
	t.Helper()
	alg, err := mutants.New(name, variant, tr)
	if err != nil {
		t.Fatal(err)
	}
	run, err := replay.Run(tr, alg, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// protocolCase is a property case whose run is a replay of src through
// protocol name (or a mutant of it).
func protocolCase(property, name string, fail bool, witness, protocol, variant string, src func(*testing.T) *trace.Trace) propCase {
	return propCase{property: property, name: name, fail: fail, witness: witness, src: src,
		replayed: func(t *testing.T) *trace.Run { return protocolRun(t, protocol, variant, src(t)) }}
}

func protocolCases() []propCase {
	return []propCase{
		protocolCase(report.RDT, "fdas-clean", false, "", "fdas", "", rdtTrace),
		protocolCase(report.RDT, "fdas-clean-z", false, "", "fdas", "", zCycleTrace),
		protocolCase(report.RDT, "fdas-no-forced", true, "P2's checkpoint 1 (seq 5) on P0's checkpoint 1 (seq 1) is not trackable", "fdas", "no-forced", rdtTrace),
		protocolCase(report.RDT, "fdas-no-forced-z-cycle", true, "lies on a Z-cycle", "fdas", "no-forced", zCycleTrace),

		protocolCase(report.ZCycleFree, "bcs-clean", false, "", "bcs", "", zCycleTrace),
		protocolCase(report.ZCycleFree, "hmnr-clean", false, "", "hmnr", "", zCycleTrace),
		protocolCase(report.ZCycleFree, "fdas-clean", false, "", "fdas", "", zCycleTrace),
		protocolCase(report.ZCycleFree, "coordinated-clean", false, "", "coordinated", "", roundTrace),
		protocolCase(report.ZCycleFree, "bcs-no-forced", true, "BCS promises none", "bcs", "no-forced", zCycleTrace),
		protocolCase(report.ZCycleFree, "hmnr-no-forced", true, "HMNR promises none", "hmnr", "no-forced", zCycleTrace),
		protocolCase(report.ZCycleFree, "fdas-no-forced", true, "FDAS promises none", "fdas", "no-forced", zCycleTrace),

		protocolCase(report.SnLines, "bcs-clean", false, "", "bcs", "", zCycleTrace),
		protocolCase(report.SnLines, "coordinated-clean", false, "", "coordinated", "", roundTrace),
		protocolCase(report.SnLines, "bcs-no-forced", true, "m1 is an orphan of S_1", "bcs", "no-forced", zCycleTrace),
		protocolCase(report.SnLines, "coordinated-non-blocking", true, "m is an orphan of S_1", "coordinated", "non-blocking", roundTrace),

		protocolCase(report.Equivalence, "coordinated-clean", false, "", "coordinated", "", roundTrace),
		{property: report.Equivalence, name: "coordinated-forged-checkpoint", fail: true, witness: "P1's checkpoint at seq", src: roundTrace,
			replayed: func(t *testing.T) *trace.Run { return forgedRoundCheckpoint(t, false) }},
		{property: report.Equivalence, name: "coordinated-request-answered-twice", fail: true, witness: "is no timer tick of the trace", src: roundTrace,
			replayed: func(t *testing.T) *trace.Run { return forgedRoundCheckpoint(t, true) }},
	}
}

// forgedRoundCheckpoint is coordinated's run of roundTrace with one more
// basic checkpoint of P1 that no tick and no request explains: at t=2.5
// (twice: right after P1's round checkpoint, at the request's instant,
// as a second answer to the one request).
func forgedRoundCheckpoint(t *testing.T, twice bool) *trace.Run {
	run := protocolRun(t, "coordinated", "", roundTrace(t))
	at := -1
	for i := range run.Events {
		e := &run.Events[i]
		switch {
		case twice && e.Kind == trace.Checkpoint && e.P == 1:
			at = i + 1
		case !twice && at < 0 && e.T >= 2500*trace.Second/1000:
			at = i
		}
	}
	if at < 0 {
		t.Fatal("no place for the forged checkpoint")
	}
	prev := run.Events[at-1]
	e := trace.NewRunEvent(trace.Checkpoint, prev.T, 1)
	e.Ckpt, e.CkptType, e.Sn = 9, trace.CkptBasic, 1
	e.Pos = liveOps(run, at, 1)
	run.Events = append(run.Events[:at], append([]trace.RunEvent{e}, run.Events[at:]...)...)
	return renumber(run)
}

// liveOps counts process p's app ops before event index at of a
// failure-free run.
func liveOps(run *trace.Run, at int, p int32) int32 {
	var n int32
	for i := 0; i < at; i++ {
		if e := &run.Events[i]; e.P == p && (e.Kind == trace.Send || e.Kind == trace.Recv || e.Kind == trace.Internal) {
			n++
		}
	}
	return n
}
