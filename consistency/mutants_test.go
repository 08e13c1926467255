package consistency_test

import (
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/algorithms/mutants"
	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// The checker must catch every deliberately broken MS variant on a fixed
// trace, by the property the variant breaks, and pass the default MS on
// the same trace. (The checker package itself imports no algorithm: this
// is an external test.)
func TestMSMutantsCaught(t *testing.T) {
	for _, tc := range []struct {
		name, variant string
		build         *tracetest.Builder
		property      string
		witness       string
	}{
		{"no forced checkpoint breaks S_n", "no-forced",
			tracetest.NewBuilder("P0", "P1").Checkpoint(0.1, "P0").Send(0.2, "P0", "P1", "m1").Recv(0.5, "P1", "m1"),
			report.SnLines, "m1"},
		{"no forced checkpoint makes a Z-cycle", "no-forced",
			tracetest.NewBuilder("P0", "P1").Send(0.1, "P1", "P0", "m2").Recv(0.2, "P0", "m2").Checkpoint(0.3, "P0").
				Send(0.4, "P0", "P1", "m1").Recv(0.5, "P1", "m1"),
			report.ZCycleFree, "Z-path"},
		{"no logging", "no-log",
			tracetest.NewBuilder("P0", "P1", "P2").Checkpoint(0.1, "P1").Checkpoint(0.2, "P1").Send(0.3, "P0", "P1", "m1").
				Recv(0.5, "P1", "m1").Send(0.6, "P1", "P2", "m2").Fail(1.0, "P1").Recv(3.0, "P2", "m2"),
			report.LogReplayRules, "logging rule demands a log entry"},
		{"replaying stale entries", "replay-all",
			tracetest.NewBuilder("P0", "P1").Checkpoint(0.1, "P1").Checkpoint(0.2, "P1").Checkpoint(0.25, "P0").
				Send(0.3, "P0", "P1", "m1").Recv(0.5, "P1", "m1").Fail(1.0, "P0"),
			report.LogReplayRules, "stale"},
		{"textbook under concurrent failures", "textbook",
			tracetest.NewBuilder("P0", "P1", "P2").Checkpoint(0.05, "P0").Checkpoint(0.06, "P0").Checkpoint(0.07, "P0").
				Checkpoint(0.1, "P1").Send(0.2, "P1", "P2", "m1").Recv(0.3, "P2", "m1").Fail(0.9, "P0").Fail(1.0, "P1"),
			report.OrphanFree, "m1 is an orphan"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := tc.build.Build()
			if err != nil {
				t.Fatal(err)
			}
			tr.Name = tc.name
			good := verify(t, tr, "")
			if !good.Valid {
				t.Fatalf("default MS fails on the trace:\n%s", dumpReport(good))
			}
			bad := verify(t, tr, tc.variant)
			p := property(bad, tc.property)
			if p.Status != report.Fail {
				t.Fatalf("%s: %s is %s, want fail\n%s", tc.variant, tc.property, p.Status, dumpReport(bad))
			}
			if !strings.Contains(dumpReport(bad), tc.witness) {
				t.Errorf("no witness %q in\n%s", tc.witness, dumpReport(bad))
			}
			if bad.Valid {
				t.Error("report with a failing property is valid")
			}
		})
	}
}

func verify(t *testing.T, tr *trace.Trace, variant string) report.Report {
	t.Helper()
	alg, err := mutants.New("ms", variant, tr)
	if err != nil {
		t.Fatalf("MS variant %q: %v", variant, err)
	}
	run, err := replay.Run(tr, alg, replay.Options{Variant: variant})
	if err != nil {
		t.Fatal(err)
	}
	return consistency.Check(run, tr)
}

func property(r report.Report, name string) report.Property {
	for _, p := range r.Properties {
		if p.Name == name {
			return p
		}
	}
	return report.Property{}
}

func dumpReport(r report.Report) string {
	var b strings.Builder
	for _, p := range r.Properties {
		b.WriteString(p.Name + "=" + string(p.Status) + " " + p.Note + "\n")
		for _, v := range p.Violations {
			b.WriteString("   " + v.Message + "\n      because " + v.Because + "\n")
		}
	}
	return b.String()
}

// Each deliberately broken PK variant is caught on a fixed trace by the
// property it breaks: P0 loses its receipt of m0 and its send of m1, so
// P1's receipt of m1 is an orphan; P1's later receipt of m2 from P2 is
// undone with it and must go back to the mailbox.
func TestPKMutantsCaught(t *testing.T) {
	tr, err := tracetest.NewBuilder("P0", "P1", "P2").
		Send(0.1, "P2", "P0", "m0").Recv(0.2, "P0", "m0").
		Send(0.3, "P0", "P1", "m1").Recv(0.4, "P1", "m1").
		Send(0.45, "P2", "P1", "m2").Recv(0.5, "P1", "m2").
		Fail(0.6, "P0").Build()
	if err != nil {
		t.Fatal(err)
	}
	tr.Name = "pk-mutants"
	run := func(variant string) report.Report {
		alg, err := mutants.New("pk", variant, tr)
		if err != nil {
			t.Fatalf("pk variant %q: %v", variant, err)
		}
		r, err := replay.Run(tr, alg, replay.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return consistency.Check(r, tr)
	}
	if good := run(""); !good.Valid {
		t.Fatalf("default PK fails on the trace:\n%s", dumpReport(good))
	}
	for _, tc := range []struct {
		variant, property, witness string
	}{
		{"no-token", report.OrphanFree, "receipt of m1 consumes a copy whose send was undone"},
		{"no-resend", report.NoLostMessages, "m0 is lost"},
		{"no-requeue", report.NoLostMessages, "m2 is lost"},
	} {
		t.Run(tc.variant, func(t *testing.T) {
			bad := run(tc.variant)
			if p := property(bad, tc.property); p.Status != report.Fail {
				t.Fatalf("%s: %s is %s, want fail\n%s", tc.variant, tc.property, p.Status, dumpReport(bad))
			}
			if !strings.Contains(dumpReport(bad), tc.witness) {
				t.Errorf("no witness %q in\n%s", tc.witness, dumpReport(bad))
			}
		})
	}
}
