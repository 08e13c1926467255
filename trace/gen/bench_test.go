package gen

import (
	"io"
	"runtime"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/ckpt-dev/ckpt/trace"
)

func benchConfig(events int) Config {
	c := DefaultConfig()
	c.Procs, c.Events, c.Failures, c.Concurrent, c.InTransit = 8, events, 4, true, 10
	c.Ticks = []trace.Time{5 * sec, 7 * sec}
	return c
}

// BenchmarkGenerate writes 1,000,000 ops as JSON to io.Discard and
// reports events per second (ops plus timer events and failures).
func BenchmarkGenerate(b *testing.B) {
	c := benchConfig(1_000_000)
	b.ReportAllocs()
	var st Stats
	for b.Loop() {
		var err error
		if st, err = Write(io.Discard, c, codec.WriteOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(st.Events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkGenerateOnly measures the simulation without encoding.
func BenchmarkGenerateOnly(b *testing.B) {
	c := benchConfig(1_000_000)
	b.ReportAllocs()
	var st Stats
	sink := SinkFunc(func(*trace.Event, string) error { return nil })
	for b.Loop() {
		var err error
		if st, err = Generate(c, sink); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(st.Events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// peakSink samples the live heap every 2^20 events.
type peakSink struct {
	tw   *codec.TraceWriter
	n    int
	peak uint64
}

func (s *peakSink) WriteEvent(ev *trace.Event, msg, label string) error {
	s.n++
	if s.n&(1<<20-1) == 0 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		s.peak = max(s.peak, m.HeapAlloc)
	}
	return s.tw.WriteEvent(ev, msg, label)
}

// TestStreamingMemory generates 10^7 ops as JSON into io.Discard and
// checks that the live heap stays bounded: a generator that kept events
// (or anything per event) would need hundreds of megabytes.
func TestStreamingMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("10^7 events; skipped in -short")
	}
	c := benchConfig(10_000_000)
	h, err := Header(c)
	if err != nil {
		t.Fatal(err)
	}
	tw, err := codec.NewTraceWriter(io.Discard, h, codec.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	s := &peakSink{tw: tw}
	st, err := Generate(c, s)
	if err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	growth := int64(s.peak) - int64(before.HeapAlloc)
	t.Logf("%d events (%d ops), peak live heap +%d KiB, %d messages in flight at most, %.1f allocs/event",
		st.Events, st.Ops, growth>>10, st.MaxInFlight, float64(after.Mallocs-before.Mallocs)/float64(st.Events))
	if st.Ops != c.Events {
		t.Fatalf("%d ops", st.Ops)
	}
	if growth > 8<<20 {
		t.Errorf("live heap grew by %d MiB while streaming", growth>>20)
	}
	if allocs := after.Mallocs - before.Mallocs; allocs > uint64(st.Sends)+1000 {
		t.Errorf("%d allocations for %d events (%d sends): more than one per message", allocs, st.Events, st.Sends)
	}
}
