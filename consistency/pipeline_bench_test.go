package consistency_test

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// The pipeline benchmarks measure what `ckpt verify` does on the traces
// of `ckpt gen --procs 16 --events N --failures 10 --seed 1`: decode,
// replay through MS and PK, and check each run, at two sizes.

var pipelineSizes = []int{100_000, 1_000_000}

type genTrace struct {
	once sync.Once
	data []byte
	tr   *trace.Trace
	runs map[string]*trace.Run
	err  error
}

var genTraces sync.Map // int -> *genTrace

// generated returns the encoded and decoded trace of n ops, built once
// per test binary.
func generated(b *testing.B, n int) *genTrace {
	v, _ := genTraces.LoadOrStore(n, &genTrace{})
	g := v.(*genTrace)
	g.once.Do(func() {
		c := gen.DefaultConfig()
		c.Procs, c.Events, c.Failures, c.Seed = 16, n, 10, 1
		var buf bytes.Buffer
		if _, g.err = gen.Write(&buf, c, codec.WriteOptions{}); g.err != nil {
			return
		}
		g.data = buf.Bytes()
		g.tr, g.err = codec.ReadTrace("gen.json", bytes.NewReader(g.data))
		g.runs = map[string]*trace.Run{}
	})
	if g.err != nil {
		b.Fatal(g.err)
	}
	return g
}

func replayOnce(b testing.TB, tr *trace.Trace, name string) *trace.Run {
	alg, err := algorithms.New(name, "", tr)
	if err != nil {
		b.Fatal(err)
	}
	run, err := replay.Run(tr, alg, replay.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return run
}

func perEvent(b *testing.B, events int) {
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkPipelineDecode decodes the JSON trace.
func BenchmarkPipelineDecode(b *testing.B) {
	for _, n := range pipelineSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			g := generated(b, n)
			b.SetBytes(int64(len(g.data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := codec.ReadTrace("gen.json", bytes.NewReader(g.data)); err != nil {
					b.Fatal(err)
				}
			}
			perEvent(b, len(g.tr.Events))
		})
	}
}

// BenchmarkPipelineReplay replays the trace through MS and PK.
func BenchmarkPipelineReplay(b *testing.B) {
	for _, alg := range []string{"ms", "pk"} {
		for _, n := range pipelineSizes {
			b.Run(fmt.Sprintf("%s/%d", alg, n), func(b *testing.B) {
				g := generated(b, n)
				b.ReportAllocs()
				for b.Loop() {
					replayOnce(b, g.tr, alg)
				}
				perEvent(b, len(g.tr.Events))
			})
		}
	}
}

// BenchmarkPipelineCheck checks the MS and PK runs of the trace.
func BenchmarkPipelineCheck(b *testing.B) {
	for _, alg := range []string{"ms", "pk"} {
		for _, n := range pipelineSizes {
			b.Run(fmt.Sprintf("%s/%d", alg, n), func(b *testing.B) {
				g := generated(b, n)
				run := replayOnce(b, g.tr, alg)
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					if r := consistency.Check(run, g.tr); !r.Valid {
						b.Fatalf("%s run of the generated trace is invalid", alg)
					}
				}
				perEvent(b, len(run.Events))
			})
		}
	}
}

// BenchmarkPlacementCheck checks the runs of the checkpoint-placement
// protocols on the generated trace without its failures (which they
// refuse): FDAS's check judges rdt, the others' do not, so fdas against
// bcs is what rdt costs.
func BenchmarkPlacementCheck(b *testing.B) {
	for _, alg := range []string{"bcs", "fdas", "hmnr", "coordinated"} {
		for _, n := range pipelineSizes {
			b.Run(fmt.Sprintf("%s/%d", alg, n), func(b *testing.B) {
				g := generated(b, n)
				ff := &trace.Trace{Name: g.tr.Name, Processes: g.tr.Processes, Params: g.tr.Params, Msgs: g.tr.Msgs, Labels: g.tr.Labels}
				for _, e := range g.tr.Events {
					if e.Kind != trace.Fail {
						ff.Events = append(ff.Events, e)
					}
				}
				if err := trace.Validate(ff); err != nil {
					b.Fatal(err)
				}
				run := replayOnce(b, ff, alg)
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					if r := consistency.Check(run, ff); !r.Valid {
						b.Fatalf("%s run of the generated trace is invalid", alg)
					}
				}
				perEvent(b, len(run.Events))
			})
		}
	}
}

// BenchmarkSmallTrace replays and checks a ten-event trace, as the
// property tests and a verify of many small traces do: what it measures is
// the fixed cost of a replay and a check, which should not depend on the
// sizes that large traces need.
func BenchmarkSmallTrace(b *testing.B) {
	tr, err := codec.ReadTraceFile("../testdata/traces/forced.json")
	if err != nil {
		b.Fatal(err)
	}
	for _, alg := range []string{"ms", "pk"} {
		b.Run(alg, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				run := replayOnce(b, tr, alg)
				if r := consistency.Check(run, tr); !r.Valid {
					b.Fatalf("%s run of forced.json is invalid", alg)
				}
			}
		})
	}
}
