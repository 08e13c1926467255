package consistency_test

import (
	"fmt"
	"testing"

	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// BenchmarkLazyWitnesses checks an MS run of 30,000 ops (about 10,000
// sends) twice: as run, and relabelled as BCS, where every send's
// piggyback breaks BCS's shape, one log-replay-rules violation per send.
// Only the first 20 witnesses are kept, so the relabelled check should
// cost about what the valid one does: formatting a witness per violation
// cost ten allocations and about a microsecond each (100,242 allocs/op
// against 299).
func BenchmarkLazyWitnesses(b *testing.B) {
	tr := scaleTrace(b, 4, 30000, 0)
	run := replayOnce(b, tr, "ms")
	relabelled := *run
	relabelled.Algorithm, relabelled.Options.Variant = "bcs", ""
	for _, c := range []struct {
		name  string
		run   *trace.Run
		valid bool
	}{{"as-run", run, true}, {"relabelled", &relabelled, false}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var r report.Report
			for b.Loop() {
				r = consistency.Check(c.run, tr)
			}
			if r.Valid != c.valid {
				b.Fatalf("valid = %v, want %v", r.Valid, c.valid)
			}
			b.ReportMetric(float64(violations(r)), "violations")
		})
	}
}

// violations counts r's violations, the ones not shown included (the
// note "N violations, the first 20 shown").
func violations(r report.Report) int {
	n := 0
	for _, p := range r.Properties {
		var all int
		if _, err := fmt.Sscanf(p.Note, "%d violations", &all); err == nil {
			n += all
		} else {
			n += len(p.Violations)
		}
	}
	return n
}
