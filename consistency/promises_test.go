package consistency

import (
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// quietRun is a failure-free run of alg: one message each way around a
// checkpoint of P0, every field written (sn included, though an
// algorithm that numbers nothing would not), and P1's checkpoint forced
// where the algorithm forces any.
func quietRun(alg string) *trace.Run {
	forced := trace.CkptForced
	if alg == "pk" || alg == "coordinated" {
		forced = trace.CkptBasic
	}
	b := newRun(alg, "P0", "P1")
	b.send("P1", "P0", "m1", 0, 1, quietPB(alg, 0))
	b.recv("P0", "P1", "m1", 0, 1, trace.ViaNet)
	b.ckpt("P0", 1, trace.CkptBasic, 1, 1, trace.None)
	b.send("P0", "P1", "m2", 1, 1, quietPB(alg, 1))
	b.ckpt("P1", 1, forced, 1, 1, trace.None)
	b.recv("P1", "P0", "m2", 1, 1, trace.ViaNet)
	b.done("P0", "P1")
	return b.run
}

// quietPB is the piggyback alg sends with its counter at n, in the
// fields the algorithm writes (log_replay_rules_shape.go); PK's and
// coordinated checkpointing's sends here carry none.
func quietPB(alg string, n int32) *trace.Piggyback {
	pb := trace.NewPiggyback()
	switch alg {
	case "ms", "acme":
		pb.Sn = n
	case "ms-textbook":
		pb.Sn, pb.Inc, pb.RecLine = n, 0, 0
	case "bcs":
		pb.CIC = &trace.CIC{LC: n}
	case "fdas":
		pb.CIC = &trace.CIC{LC: trace.None, DV: []int32{n, n}}
	case "hmnr":
		pb.CIC = &trace.CIC{LC: n, Ckpt: []int32{n, 0}, Taken: []bool{false, true}, Greater: []bool{false, true}}
	default:
		return nil
	}
	return &pb
}

// TestPromisesByAlgorithm pins docs/checker.md's table: which property
// each algorithm's failure-free run is judged on (pass here), which is
// n/a (not promised), and that a foreign algorithm's promises are
// unknown. PK's run carries no vector times, so its own rules are
// unknown: only the standings of the promises are compared for it.
func TestPromisesByAlgorithm(t *testing.T) {
	const (
		P = report.Pass
		N = report.NA
		U = report.Unknown
	)
	for _, tc := range []struct {
		alg  string
		want [6]report.Status // log-replay-rules, domino-free, z-cycle-free, rdt, sn-lines, minimal-rollback
	}{
		{"ms", [6]report.Status{P, P, P, N, P, N}},
		{"ms-textbook", [6]report.Status{P, P, P, N, P, N}},
		{"pk", [6]report.Status{"", "", N, N, N, ""}},
		{"bcs", [6]report.Status{N, N, P, N, P, N}},
		{"fdas", [6]report.Status{N, N, P, P, N, N}},
		{"hmnr", [6]report.Status{N, N, P, N, N, N}},
		{"coordinated", [6]report.Status{N, N, P, N, P, N}},
		{"acme", [6]report.Status{U, U, U, U, U, U}},
	} {
		r := Check(quietRun(tc.alg), nil)
		for i, name := range []string{report.LogReplayRules, report.DominoFree, report.ZCycleFree, report.RDT, report.SnLines, report.MinimalRollback} {
			if got := verdicts(r)[name]; tc.want[i] != "" && got != tc.want[i] {
				t.Errorf("%s: %s is %s, want %s\n%s", tc.alg, name, got, tc.want[i], dump(r))
			}
		}
	}
}

// TestPlacementWithFailures: a run that claims a placement protocol yet
// shows a failure and a restart was recovered by rules the protocol does
// not have: the recovery properties are unknown, not n/a, while its
// promises are judged as ever.
func TestPlacementWithFailures(t *testing.T) {
	b := newRun("bcs", "P0", "P1")
	b.send("P0", "P1", "m1", 0, 1, quietPB("bcs", 0))
	b.recv("P1", "P0", "m1", 0, 1, trace.ViaNet)
	f := b.fail("P1")
	b.restart("P1", 0, 1, 0, f)
	b.done("P0", "P1")
	r := Check(b.run, nil)
	expect(t, r, map[string]report.Status{
		report.LogReplayRules: report.Unknown, report.DominoFree: report.Unknown, report.MinimalRollback: report.Unknown,
		report.ZCycleFree: report.Pass, report.SnLines: report.Pass, report.RDT: report.NA,
	})
	for _, p := range r.Properties {
		if p.Status == report.Unknown && p.Name != report.Equivalence && !strings.Contains(p.Note, "BCS has no recovery, yet the run shows failures") {
			t.Errorf("%s: note %q", p.Name, p.Note)
		}
	}
}

// TestRDTWitness: an FDAS run whose Z-path [m1 m2] from P0's checkpoint
// to P2's has no causal double fails rdt with the messages' and the
// checkpoints' seqs as witnesses, and a because-chain naming them.
func TestRDTWitness(t *testing.T) {
	b := newRun("fdas", "P0", "P1", "P2")
	send2 := b.send("P1", "P2", "m2", 0, 1, nil)
	c0 := b.ckpt("P0", 1, trace.CkptBasic, 0, trace.None, trace.None)
	send1 := b.send("P0", "P1", "m1", 0, 1, nil)
	recv2 := b.recv("P2", "P1", "m2", 0, 1, trace.ViaNet)
	recv1 := b.recv("P1", "P0", "m1", 1, 1, trace.ViaNet)
	c2 := b.ckpt("P2", 1, trace.CkptBasic, 1, trace.None, trace.None)
	b.done("P0", "P1", "P2")
	r := Check(b.run, nil)
	expect(t, r, map[string]report.Status{report.RDT: report.Fail, report.ZCycleFree: report.Pass})
	v := r.Properties[6].Violations
	if r.Properties[6].Name != report.RDT || len(v) != 1 {
		t.Fatalf("rdt violations: %+v", r.Properties[6])
	}
	want := []int32{c0, send1, recv1, send2, recv2, c2}
	if len(v[0].Seqs) != len(want) {
		t.Fatalf("seqs %v, want %v", v[0].Seqs, want)
	}
	for i := range want {
		if v[0].Seqs[i] != want[i] {
			t.Fatalf("seqs %v, want %v", v[0].Seqs, want)
		}
	}
	for _, s := range []string{"P0's checkpoint 1 (seq 1)", "P2's checkpoint 1 (seq 5)", "m1", "m2", "which FDAS promises"} {
		if !strings.Contains(v[0].Message+v[0].Because, s) {
			t.Errorf("violation lacks %q: %s because %s", s, v[0].Message, v[0].Because)
		}
	}
}
