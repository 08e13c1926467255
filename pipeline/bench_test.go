package pipeline

import (
	"bytes"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"sync"
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// benchTraces are `ckpt gen --procs P --events N --failures F --seed
// 4242` (docs/performance.md), built once per test binary.
var benchTraces sync.Map // [3]int -> func() (*trace.Trace, error)

func benchTrace(b *testing.B, procs, n, failures int) *trace.Trace {
	v, _ := benchTraces.LoadOrStore([3]int{procs, n, failures}, sync.OnceValues(func() (*trace.Trace, error) {
		c := gen.DefaultConfig()
		c.Procs, c.Events, c.Failures, c.Seed, c.MaxEvents = procs, n, failures, 4242, 1<<30
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
// reports. both runs the two algorithms one after the other. peak-MiB is the process's peak
// resident set over the operation (Linux; the heap is handed back to the
// OS first), the test binary's own share (the trace, about 150 MiB at
// 10^6) included. A knob is kept only if it lowers this benchmark's CPU
// time or peak by 10% (docs/performance.md).
func BenchmarkVerify(b *testing.B) {
	// 16 processes, 10 failures at 10^5 and 10^6 ops; 4 processes with a
	// failure per op (issue 17's 10^5 failures).
	for _, sz := range [][3]int{{16, 100_000, 10}, {16, 1_000_000, 10}, {4, 100_000, 100_000}} {
		name := fmt.Sprint(sz[1])
		if sz[2] > 10 {
			name = fmt.Sprintf("%dfailures", sz[2])
		}
		for _, c := range []struct {
			name  string
			algos []string
		}{
			{"ms", []string{"ms"}},
			{"pk", []string{"pk"}},
			{"both", []string{"ms", "pk"}},
		} {
			b.Run(name+"/"+c.name, func(b *testing.B) {
				tr := benchTrace(b, sz[0], sz[1], sz[2])
				p := &Pipeline{}
				b.ReportAllocs()
				peak := 0.0
				for b.Loop() {
					b.StopTimer()
					debug.FreeOSMemory()
					resetPeak()
					b.StartTimer()
					for _, o := range p.Verify(tr, "bench.json", Options{Algorithms: c.algos}) {
						if o.Report.Error != "" {
							b.Fatal(o.Report.Error)
						}
					}
					peak = max(peak, peakMiB())
				}
				b.ReportMetric(float64(len(tr.Events))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
				if peak > 0 {
					b.ReportMetric(peak, "peak-MiB")
				}
			})
		}
	}
}

// resetPeak resets the process's peak resident set (Linux 4.0 and later;
// elsewhere peakMiB reports 0).
func resetPeak() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakMiB is the process's peak resident set since resetPeak, in MiB.
func peakMiB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			kb, _ := strconv.ParseFloat(string(bytes.TrimSuffix(bytes.TrimSpace(v), []byte(" kB"))), 64)
			return kb / 1024
		}
	}
	return 0
}
