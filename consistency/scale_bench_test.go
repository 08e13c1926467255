package consistency_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// The scale benchmarks (issue 17) replay and check generated traces whose
// failures or processes grow while the ops stay few, at sizes small
// enough for CI (`go test ./consistency -run XXX -bench Scale
// -benchtime 1x`): per failure and per process the cost must stay flat
// (ns/failure, B/failure; ns/process), which a quadratic term shows at
// once. scripts/bench.sh runs the same shapes at full size.

func scaleTrace(b *testing.B, procs, ops, failures int) *trace.Trace {
	c := gen.DefaultConfig()
	c.Procs, c.Events, c.Failures, c.Seed = procs, ops, failures, 1
	var buf bytes.Buffer
	if _, err := gen.Write(&buf, c, trace.WriteOptions{}); err != nil {
		b.Fatal(err)
	}
	tr, err := trace.ReadTrace("gen.json", bytes.NewReader(buf.Bytes()))
	if err != nil {
		b.Fatal(err)
	}
	return tr
}

// BenchmarkScaleFailures: 4 processes, 100 ops, 300 then 3,000 failures;
// 2,000 ops with 2,000 failures.
func BenchmarkScaleFailures(b *testing.B) {
	for _, sz := range []struct{ ops, failures int }{{100, 300}, {100, 3000}, {2000, 2000}} {
		tr := scaleTrace(b, 4, sz.ops, sz.failures)
		for _, alg := range []string{"ms", "pk"} {
			b.Run(fmt.Sprintf("%s/ops=%d/failures=%d", alg, sz.ops, sz.failures), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if r := consistency.Check(replayOnce(b, tr, alg), tr); !r.Valid {
						b.Fatalf("%s run is invalid", alg)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*sz.failures), "ns/failure")
			})
		}
	}
}

// BenchmarkScaleProcesses: 10 ops per process, 1,000 then 10,000
// processes under MS; 200 processes under PK (its vectors are O(n) per
// message).
func BenchmarkScaleProcesses(b *testing.B) {
	for _, sz := range []struct {
		alg   string
		procs int
	}{{"ms", 1000}, {"ms", 10000}, {"pk", 200}} {
		tr := scaleTrace(b, sz.procs, 10*sz.procs, 0)
		b.Run(fmt.Sprintf("%s/procs=%d", sz.alg, sz.procs), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if r := consistency.Check(replayOnce(b, tr, sz.alg), tr); !r.Valid {
					b.Fatalf("%s run is invalid", sz.alg)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*sz.procs), "ns/process")
		})
	}
}
