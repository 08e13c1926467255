package consistency_test

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"

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

func scaleTrace(b testing.TB, procs, ops, failures int) *trace.Trace {
	c := gen.DefaultConfig()
	c.Procs, c.Events, c.Failures, c.Seed = procs, ops, failures, 1
	return decodedTrace(b, c)
}

// decodedTrace generates and decodes the trace of c, as a user's file would be.
func decodedTrace(tb testing.TB, c gen.Config) *trace.Trace {
	var buf bytes.Buffer
	if _, err := gen.Write(&buf, c, codec.WriteOptions{}); err != nil {
		tb.Fatal(err)
	}
	tr, err := codec.ReadTrace("gen.json", bytes.NewReader(buf.Bytes()))
	if err != nil {
		tb.Fatal(err)
	}
	return tr
}

// BenchmarkScaleFailures: 4 processes, 100 ops, 300 then 3,000 failures;
// 2,000 ops with 2,000 failures, and 20,000 with 20,000, where a cost per
// failure that grows with the live history (a token's received set
// walked per failure: 200 s at 10^5) shows as ns/failure rising tenfold.
func BenchmarkScaleFailures(b *testing.B) {
	for _, sz := range []struct{ ops, failures int }{{100, 300}, {100, 3000}, {2000, 2000}, {20000, 20000}} {
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

// BenchmarkScaleFailuresFromFile: BenchmarkScaleFailures's PK shapes
// with 16 processes, the run read back from its file, where a token's
// receipt list is the file's (no lookup of the algorithm's): a token hop
// judges each send to the announcer against that list, so a search of it
// per send, or a walk of the whole live history per hop, shows as
// ns/failure rising with the run (a scan per lookup took 5x the CPU of
// `check` on a 2,000-failure run). Some rise is the format's: ckpt/run@1
// repeats a token's list at every hop, so decoding grows with failures
// times processes times list.
func BenchmarkScaleFailuresFromFile(b *testing.B) {
	for _, sz := range []struct{ ops, failures int }{{2000, 200}, {20000, 2000}} {
		tr := scaleTrace(b, 16, sz.ops, sz.failures)
		var buf bytes.Buffer
		if err := codec.WriteRun(&buf, replayOnce(b, tr, "pk"), codec.WriteOptions{}); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("pk/ops=%d/failures=%d", sz.ops, sz.failures), func(b *testing.B) {
			for b.Loop() {
				run, err := codec.ReadRun("run.json", bytes.NewReader(buf.Bytes()))
				if err != nil {
					b.Fatal(err)
				}
				if r := consistency.Check(run, tr); !r.Valid {
					b.Fatal("pk run is invalid")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*sz.failures), "ns/failure")
		})
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

// idleTrace has procs processes of which only a few do anything: 20 ops
// and one failure. A real cluster log of a large system looks like this
// (most nodes silent in the window recorded).
func idleTrace(tb testing.TB, procs int) *trace.Trace {
	c := gen.DefaultConfig()
	c.Procs, c.Events, c.Failures, c.Seed = procs, 20, 1, 3
	c.Ticks, c.FlushEvery = []trace.Time{0}, 0
	return decodedTrace(tb, c)
}

// TestIdleProcessesLinear: replaying and checking a trace of 20,000
// mostly idle processes allocates linearly in processes under both
// algorithms. PK's algorithm and checker each kept a current vector per
// process, n² entries (3.2 GB here; 200,000 processes crashed with out
// of memory); only processes with events now get one.
func TestIdleProcessesLinear(t *testing.T) {
	const procs = 20000
	tr := idleTrace(t, procs)
	for _, alg := range []string{"ms", "pk"} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if r := consistency.Check(replayOnce(t, tr, alg), tr); !r.Valid {
			t.Fatalf("%s run is invalid", alg)
		}
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got > 200<<20 {
			t.Errorf("%s: replay and check of %d idle processes allocated %d MiB, want linear (< 200 MiB; n² vectors are 3,052 MiB)", alg, procs, got>>20)
		}
	}
}

// BenchmarkScaleIdleProcesses: 20 ops and one failure among 10,000 then
// 100,000 processes. MS's failure announcement puts a control message to
// every process in flight at once; the checker matched each arrival by
// scanning the list of those in flight (42 s at 200,000 processes).
func BenchmarkScaleIdleProcesses(b *testing.B) {
	for _, procs := range []int{10000, 100000} {
		tr := idleTrace(b, procs)
		for _, alg := range []string{"ms", "pk"} {
			b.Run(fmt.Sprintf("%s/procs=%d", alg, procs), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if r := consistency.Check(replayOnce(b, tr, alg), tr); !r.Valid {
						b.Fatalf("%s run is invalid", alg)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*procs), "ns/process")
			})
		}
	}
}
