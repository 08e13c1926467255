package consistency_test

import (
	"reflect"
	"testing"

	"github.com/ckpt-dev/ckpt/measure"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// One baseline serves the reports of every algorithm replayed from its
// trace: each report is the one its stream gives computing its own, with
// the baseline's failures renumbered to its own run's seqs, which differ
// between the algorithms (so a report renumbering a list the other shares
// would show here).
func TestSharedBaselineSameReports(t *testing.T) {
	renumbered := 0
	for seed := uint64(1); seed <= 6; seed++ {
		c := gen.DefaultConfig()
		c.Seed, c.Procs, c.Events, c.Failures = seed, 4, 300, 3
		tr, err := gen.Trace(c)
		if err != nil {
			t.Fatal(err)
		}
		base := measure.StartBaseline(tr)
		shared := map[string]report.Report{}
		for _, name := range []string{"ms", "pk"} {
			shared[name], _ = streamedSharing(t, name, tr, base)
		}
		for _, name := range []string{"ms", "pk"} {
			own, _ := streamed(t, name, tr)
			if !reflect.DeepEqual(shared[name], own) {
				t.Errorf("seed %d, %s: the report with the shared baseline differs from the one with its own:\n%+v\n%+v",
					seed, name, shared[name].Baseline, own.Baseline)
			}
		}
		ms, pk := shared["ms"].Baseline.Uncoordinated.Line, shared["pk"].Baseline.Uncoordinated.Line
		if len(ms) == 0 || len(ms) != len(pk) {
			t.Fatalf("seed %d: baselines of %d and %d failures", seed, len(ms), len(pk))
		}
		for k := range ms {
			if ms[k].Failure.Seq != pk[k].Failure.Seq {
				renumbered++
			}
		}
	}
	if renumbered == 0 {
		t.Errorf("no failure has different seqs in the MS and PK runs: sharing went untested")
	}
}
