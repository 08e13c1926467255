package pipeline

import (
	"fmt"
	"sync"
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// benchTraces are `ckpt gen --procs 16 --events N --failures 10 --seed
// 4242` (docs/performance.md), built once per test binary.
var benchTraces sync.Map // int -> func() (*trace.Trace, error)

func benchTrace(b *testing.B, n int) *trace.Trace {
	v, _ := benchTraces.LoadOrStore(n, sync.OnceValues(func() (*trace.Trace, error) {
		c := gen.DefaultConfig()
		c.Procs, c.Events, c.Failures, c.Seed = 16, n, 10, 4242
		return gen.Trace(c)
	}))
	tr, err := v.(func() (*trace.Trace, error))()
	if err != nil {
		b.Fatal(err)
	}
	return tr
}

// BenchmarkVerify is what `ckpt verify --algo ms|pk|both` does after
// decoding: replay, the checker taking each run as it is made, the
// reports, on the machine's cores (both: the two algorithms in
// parallel). A knob that changes the pipeline is kept only if it saves
// 10% of this benchmark's time or memory at 10^6 events.
func BenchmarkVerify(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		for _, algos := range [][]string{{"ms"}, {"pk"}, {"ms", "pk"}} {
			name := fmt.Sprintf("%d/%s", n, algos[0])
			if len(algos) > 1 {
				name = fmt.Sprintf("%d/both", n)
			}
			b.Run(name, func(b *testing.B) {
				tr := benchTrace(b, n)
				p := &Pipeline{}
				b.ReportAllocs()
				for b.Loop() {
					for _, o := range p.Verify(tr, "bench.json", Options{Algorithms: algos}) {
						if o.Report.Error != "" {
							b.Fatal(o.Report.Error)
						}
					}
				}
				b.ReportMetric(float64(len(tr.Events))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
			})
		}
	}
}
