package trace

import (
	"bytes"
	"strconv"
	"sync"
	"testing"
)

// synthetic writes a valid trace of n events over 8 processes: a third
// sends, a third the matching receives, the rest internal ops and
// checkpoints, with a label now and then.
func synthetic(tb testing.TB, n int, opts WriteOptions) []byte {
	const procs = 8
	h := TraceHeader{}
	for i := 0; i < procs; i++ {
		h.Processes = append(h.Processes, "P"+strconv.Itoa(i))
	}
	var buf bytes.Buffer
	tw, err := NewTraceWriter(&buf, h, opts)
	if err != nil {
		tb.Fatal(err)
	}
	t := Time(0)
	msg := 0
	for i := 0; i < n; {
		t += Second / 1000
		p := int32(i % procs)
		switch {
		case i%3 == 0 && i+1 < n:
			id := "m" + strconv.Itoa(msg)
			msg++
			to := (p + 1) % procs
			send := Event{T: t, Kind: Send, P: p, To: to, Msg: None}
			recv := Event{T: t + Second/2000, Kind: Recv, P: to, To: None, Msg: None}
			if err := tw.WriteEvent(&send, id); err != nil {
				tb.Fatal(err)
			}
			if err := tw.WriteEvent(&recv, id); err != nil {
				tb.Fatal(err)
			}
			t += Second / 2000
			i += 2
		default:
			ev := Event{T: t, Kind: Internal, P: p, To: None, Msg: None}
			if i%5 == 0 {
				ev.Kind = Checkpoint
			}
			if i%100 == 1 {
				ev.Label = "compute"
			}
			if err := tw.WriteEvent(&ev, ""); err != nil {
				tb.Fatal(err)
			}
			i++
		}
	}
	if err := tw.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

var (
	benchOnce  sync.Once
	benchJSON  []byte
	benchJSONL []byte
)

const benchEvents = 1_000_000

func benchInputs(b *testing.B) {
	benchOnce.Do(func() {
		benchJSON = synthetic(b, benchEvents, WriteOptions{})
		benchJSONL = synthetic(b, benchEvents, WriteOptions{JSONL: true})
	})
}

func benchmarkRead(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tr, err := ReadTrace("bench", bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		if len(tr.Events) != benchEvents {
			b.Fatalf("%d events", len(tr.Events))
		}
	}
	b.ReportMetric(float64(benchEvents)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkReadTraceJSON decodes a 1,000,000-event JSON document.
func BenchmarkReadTraceJSON(b *testing.B) {
	benchInputs(b)
	benchmarkRead(b, benchJSON)
}

// BenchmarkReadTraceJSONL decodes the same trace as JSON Lines.
func BenchmarkReadTraceJSONL(b *testing.B) {
	benchInputs(b)
	benchmarkRead(b, benchJSONL)
}

// BenchmarkWriteTrace encodes a 1,000,000-event trace.
func BenchmarkWriteTrace(b *testing.B) {
	benchInputs(b)
	tr, err := ReadTrace("bench", bytes.NewReader(benchJSON))
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf.Reset()
		if err := WriteTrace(&buf, tr, WriteOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportMetric(float64(benchEvents)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// TestDecodeAllocations guards the per-event allocation budget: besides
// the events slice, one string per message id and per label.
func TestDecodeAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	data := synthetic(t, 30_000, WriteOptions{JSONL: true})
	allocs := testing.AllocsPerRun(3, func() {
		if _, err := ReadTrace("x", bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
	})
	// 10,000 message ids, 300 labels; slice and map growth on top.
	if allocs > 12_000 {
		t.Errorf("%.0f allocations to decode 30,000 events, want at most 12,000", allocs)
	}
}
