package protocoltest_test

import (
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/algorithms/mutants"
	"github.com/ckpt-dev/ckpt/algorithms/protocoltest"
	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// The consistency checker judges each checkpoint-placement protocol by
// its promise (docs/checker.md, "What each algorithm promises"): these
// tests pin that table on random runs, show each test-only mutant
// failing its promise through the checker, and back every n/a with a run
// where the protocol does break the property it does not promise.

// placement are the protocols without recovery.
var placement = []string{"bcs", "fdas", "hmnr", "coordinated"}

// notPromised lists, per protocol, the properties the checker reports
// n/a on its failure-free runs; every other property must pass.
var notPromised = map[string][]string{
	"bcs":         {report.LogReplayRules, report.DominoFree, report.MinimalRollback, report.RDT},
	"fdas":        {report.LogReplayRules, report.DominoFree, report.MinimalRollback, report.SnLines},
	"hmnr":        {report.LogReplayRules, report.DominoFree, report.MinimalRollback, report.RDT, report.SnLines},
	"coordinated": {report.LogReplayRules, report.DominoFree, report.MinimalRollback, report.RDT},
}

func checked(t protocoltest.T, name, variant string, tr *trace.Trace) (report.Report, *trace.Run) {
	t.Helper()
	alg, err := mutants.New(name, variant, tr)
	if err != nil {
		t.Fatal(err)
	}
	run := protocoltest.Replay(t, tr, alg)
	return consistency.Check(run, tr), run
}

// verdicts renders a report's statuses, notes and first witnesses.
func verdicts(r report.Report) string {
	var b strings.Builder
	for _, p := range r.Properties {
		fmt.Fprintf(&b, "%s=%s %s\n", p.Name, p.Status, p.Note)
		for i, v := range p.Violations {
			if i < 2 {
				fmt.Fprintf(&b, "   %s %v: %s\n", v.Message, v.Seqs, v.Because)
			}
		}
	}
	return b.String()
}

// TestCheckerKeepsPromises: on random failure-free traces every protocol
// keeps its promise per the checker: the run is valid, every property it
// promises (and every algorithm-independent one) passes, the others are
// n/a — none unknown, none failing.
func TestCheckerKeepsPromises(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tr := protocoltest.Traces().Draw(t, "trace")
		for _, name := range placement {
			rep, run := checked(t, name, "", tr)
			for _, p := range rep.Properties {
				want := report.Pass
				for _, na := range notPromised[name] {
					if p.Name == na {
						want = report.NA
					}
				}
				if p.Status != want {
					t.Fatalf("%s: %s is %s, want %s\n%s\nrun:\n%s", name, p.Name, p.Status, want, verdicts(rep), protocoltest.Encode(t, run))
				}
			}
			if !rep.Valid || len(rep.Properties) != len(report.PropertyNames) {
				t.Fatalf("%s: valid %v with %d properties", name, rep.Valid, len(rep.Properties))
			}
		}
	})
}

// TestCheckerCatchesMutants: each protocol's test-only mutant
// (algorithms/mutants) fails the property it breaks, through the
// checker, on some workload where the protocol itself is valid.
func TestCheckerCatchesMutants(t *testing.T) {
	for _, tc := range []struct{ name, variant, property string }{
		{"bcs", "no-forced", report.ZCycleFree},
		{"bcs", "no-forced", report.SnLines},
		{"hmnr", "no-forced", report.ZCycleFree},
		{"fdas", "no-forced", report.RDT},
		{"coordinated", "non-blocking", report.SnLines},
	} {
		t.Run(tc.name+"/"+tc.variant+"/"+tc.property, func(t *testing.T) {
			for seed := uint64(1); seed <= 100; seed++ {
				tr := workload(t, seed)
				if good, _ := checked(t, tc.name, "", tr); !good.Valid {
					t.Fatalf("seed %d: %s itself is invalid:\n%s", seed, tc.name, verdicts(good))
				}
				bad, _ := checked(t, tc.name, tc.variant, tr)
				if status(bad, tc.property) == report.Fail {
					t.Logf("seed %d: caught: %s", seed, bad.Properties[index(tc.property)].Violations[0].Message)
					return
				}
			}
			t.Fatalf("the %s mutant of %s keeps %s on 100 workloads", tc.variant, tc.name, tc.property)
		})
	}
}

// TestNotPromisedIsBroken backs each n/a of the table on the pattern
// itself (protocoltest's judges, not the checker): for each property a
// protocol does not promise, some failure-free run of it breaks the
// property — so judging it would fail correct runs. HMNR's numbers are
// no S_n lines, BCS, HMNR and coordinated checkpointing leave Z-paths
// undoubled. (FDAS numbers no checkpoints: it has no S_n lines at all.)
func TestNotPromisedIsBroken(t *testing.T) {
	for _, tc := range []struct {
		name, property string
		judge          protocoltest.Promise
	}{
		{"hmnr", report.SnLines, protocoltest.SnConsistent},
		{"bcs", report.RDT, protocoltest.Trackable},
		{"hmnr", report.RDT, protocoltest.Trackable},
		{"coordinated", report.RDT, protocoltest.Trackable},
	} {
		t.Run(tc.name+"/"+tc.property, func(t *testing.T) {
			for seed := uint64(1); seed <= 200; seed++ {
				tr := workload(t, seed)
				_, run := checked(t, tc.name, "", tr)
				pt, err := protocoltest.PatternOf(run)
				if err != nil {
					t.Fatal(err)
				}
				if err := tc.judge(pt); err != nil {
					t.Logf("seed %d: %v", seed, err)
					return
				}
			}
			t.Fatalf("%s keeps %s on 200 workloads: is it promised after all?", tc.name, tc.property)
		})
	}
}

// workload is one of a spread of generated failure-free traces: 2–5
// processes on a complete graph, 60–140 ops, uneven tick periods.
func workload(t protocoltest.T, seed uint64) *trace.Trace {
	return protocoltest.Workload(t, 2+int(seed%4), 60+int(seed%5)*20, [][]float64{{2, 3.5, 6}, {1.5, 4}, {3, 2.5, 5, 7}}[seed%3], seed)
}

func index(name string) int {
	for i, n := range report.PropertyNames {
		if n == name {
			return i
		}
	}
	return -1
}

func status(r report.Report, name string) report.Status {
	if i := index(name); i >= 0 && i < len(r.Properties) {
		return r.Properties[i].Status
	}
	return ""
}

// TestEveryPlacementProtocolListed: the table covers every protocol
// without recovery in algorithms.All.
func TestEveryPlacementProtocolListed(t *testing.T) {
	for _, a := range algorithms.All {
		if _, ok := notPromised[a.Name]; ok == a.Recovery {
			t.Errorf("%s (recovery %v) listed %v", a.Name, a.Recovery, ok)
		}
	}
}
