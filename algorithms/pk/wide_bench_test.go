package pk

import (
	"io"
	"runtime"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// wideTrace is a failure-free trace of procs processes and 250 ops each,
// the generator's defaults otherwise (ticks every 10 s, flushes every 5):
// the shape of docs/performance.md's 4,096-process trace, narrower.
func wideTrace(b *testing.B, procs int) *trace.Trace {
	cfg := gen.DefaultConfig()
	cfg.Seed, cfg.Procs, cfg.Events, cfg.MaxEvents = 1, procs, 250*procs, int64(100*250*procs)
	tr, err := gen.Trace(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return tr
}

// benchmarkWide replays tr streamed, as replay -o and verify do (the
// engine lets go of vectors once taken), writing the run as ckpt/run@2
// to nowhere when write is set. It reports the largest heap seen every
// 50,000 events (peak-MB), which the vectors PK keeps dominate.
func benchmarkWide(b *testing.B, procs int, write bool) {
	tr := wideTrace(b, procs)
	b.ReportAllocs()
	b.ResetTimer()
	var peak uint64
	for range b.N {
		a, _ := New(Default, tr)
		var w *codec.RunWriter
		var err error
		_, err = replay.Run(tr, a, replay.Options{Stream: func(run *trace.Run, upto int) int {
			if write {
				if w == nil {
					w, err = codec.NewRunWriter(io.Discard, run, codec.WriteOptions{Compact: true})
				}
				if err == nil {
					err = w.Write(run, upto)
				}
			}
			if upto%50000 == 0 {
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
			}
			return upto
		}})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(peak>>20), "peak-MB")
}

// BenchmarkReplayWide1K replays 256,000 ops of 1,024 processes streamed.
func BenchmarkReplayWide1K(b *testing.B) { benchmarkWide(b, 1024, false) }

// BenchmarkReplayWide1KWrite is BenchmarkReplayWide1K writing the run as
// ckpt/run@2 (replay -o without the disk).
func BenchmarkReplayWide1KWrite(b *testing.B) { benchmarkWide(b, 1024, true) }
