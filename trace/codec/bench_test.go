package codec

import (
	"bytes"
	"strconv"
	"sync"
	"testing"

	"github.com/ckpt-dev/ckpt/trace"

	"github.com/ckpt-dev/ckpt/internal/race"
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
	t := trace.Time(0)
	msg := 0
	for i := 0; i < n; {
		t += trace.Second / 1000
		p := int32(i % procs)
		switch {
		case i%3 == 0 && i+1 < n:
			id := "m" + strconv.Itoa(msg)
			msg++
			to := (p + 1) % procs
			send := trace.Event{T: t, Kind: trace.Send, P: p, To: to, Msg: trace.None}
			recv := trace.Event{T: t + trace.Second/2000, Kind: trace.Recv, P: to, To: trace.None, Msg: trace.None}
			if err := tw.WriteEvent(&send, id, ""); err != nil {
				tb.Fatal(err)
			}
			if err := tw.WriteEvent(&recv, id, ""); err != nil {
				tb.Fatal(err)
			}
			t += trace.Second / 2000
			i += 2
		default:
			ev := trace.Event{T: t, Kind: trace.Internal, P: p, To: trace.None, Msg: trace.None}
			if i%5 == 0 {
				ev.Kind = trace.Checkpoint
			}
			label := ""
			if i%100 == 1 {
				label = "compute"
			}
			if err := tw.WriteEvent(&ev, "", label); err != nil {
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
	if race.Enabled {
		t.Skip("the race detector allocates on its own")
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

// syntheticRun writes a run of n events over 8 processes shaped like an
// MS run (sends with {sn, f}, receives, checkpoints with sn) every other
// thousand events and like a PK run (sends and checkpoints with vector
// times) in between, so both piggyback forms are decoded. It names an
// algorithm of its own: mixing the shapes, it is no ms or pk run, whose
// fields the decoder would require.
func syntheticRun(tb testing.TB, n int, opts WriteOptions) []byte {
	const procs = 8
	run := &trace.Run{Name: "bench", Algorithm: "mixed", Options: trace.RunOptions{Params: trace.Params{RestartDelay: trace.Second}}}
	for i := 0; i < procs; i++ {
		run.Processes = append(run.Processes, "P"+strconv.Itoa(i))
	}
	t, op := trace.Time(0), make([]int32, procs)
	vt := func(p int32) trace.VT {
		v := make(trace.VT, procs)
		v[p] = trace.VTEntry{Inc: 0, Count: op[p]}
		return v
	}
	for i := 0; i < n; i++ {
		t += trace.Second / 1000
		p := int32(i % procs)
		ms := (i/1000)%2 == 0
		ev := trace.NewRunEvent(trace.Internal, t, p)
		switch i % 4 {
		case 0, 1:
			ev.Kind, ev.Msg, ev.Copy, ev.Op = trace.Send, int32(len(run.Msgs)), 1, op[p]
			ev.Peer = (p + 1) % procs
			if i%4 == 1 {
				ev.Kind, ev.Msg, ev.Peer, ev.Via = trace.Recv, ev.Msg-1, (p+procs-1)%procs, trace.ViaNet
			} else {
				run.Msgs = append(run.Msgs, "m"+strconv.Itoa(i))
				pb := trace.NewPiggyback()
				if ms {
					pb.Sn, pb.F = int32(i/100), []trace.FEntry{{P: 1, Count: 1}}
				} else {
					pb.VT = vt(p)
				}
				ev.PB = run.AddPB(&pb)
			}
			op[p]++
		case 2:
			ev.Kind, ev.Ckpt, ev.CkptType, ev.Pos = trace.Checkpoint, int32(i/8), trace.CkptBasic, op[p]
			if ms {
				ev.Sn = int32(i / 100)
			} else {
				ev.VT = run.AddVT(vt(p))
			}
		default:
			ev.Op = op[p]
			op[p]++
		}
		run.Events = append(run.Events, ev)
	}
	var buf bytes.Buffer
	if err := WriteRun(&buf, run, opts); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

var (
	benchRunOnce  sync.Once
	benchRunJSONL []byte
)

// BenchmarkReadRunJSONL decodes a 1,000,000-event run in JSON Lines.
func BenchmarkReadRunJSONL(b *testing.B) {
	benchRunOnce.Do(func() { benchRunJSONL = syntheticRun(b, benchEvents, WriteOptions{JSONL: true}) })
	b.SetBytes(int64(len(benchRunJSONL)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run, err := ReadRun("bench", bytes.NewReader(benchRunJSONL))
		if err != nil {
			b.Fatal(err)
		}
		if len(run.Events) != benchEvents {
			b.Fatalf("%d events", len(run.Events))
		}
	}
	b.ReportMetric(float64(benchEvents)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
