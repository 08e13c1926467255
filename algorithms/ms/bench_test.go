package ms_test

import (
	"math/rand"
	"strconv"
	"testing"

	"github.com/ckpt-dev/ckpt/algorithms/ms"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// synthetic builds a failure-free trace of about n events over procs
// processes directly in memory: sends with random delays and their
// receives, internal ops, and a timer tick per process every 100 events.
func synthetic(n, procs int) *trace.Trace {
	rng := rand.New(rand.NewSource(1))
	tr := &trace.Trace{Name: "synthetic"}
	for p := 0; p < procs; p++ {
		tr.Processes = append(tr.Processes, "P"+strconv.Itoa(p))
	}
	type pend struct {
		t   trace.Time
		p   int32
		msg int32
	}
	var pending []pend // receives not yet emitted, roughly sorted by time
	t := trace.Time(0)
	emit := func(ev trace.Event) { tr.Events = append(tr.Events, ev) }
	for len(tr.Events) < n {
		t += trace.Time(1 + rng.Intn(1000))
		// Flush due receives (kept in insertion order: delays are equal
		// within a window, so times stay non-decreasing).
		k := 0
		for k < len(pending) && pending[k].t <= t {
			r := pending[k]
			emit(trace.Event{T: r.t, Kind: trace.Recv, P: r.p, To: trace.None, Msg: r.msg})
			tr.Messages[r.msg].Recv = int32(len(tr.Events) - 1)
			k++
		}
		pending = pending[k:]
		p := int32(rng.Intn(procs))
		switch x := rng.Intn(100); {
		case x < 2:
			emit(trace.Event{T: t, Kind: trace.Checkpoint, P: p, To: trace.None, Msg: trace.None})
		case x < 60:
			to := int32(rng.Intn(procs - 1))
			if to >= p {
				to++
			}
			m := int32(len(tr.Msgs))
			tr.Msgs = append(tr.Msgs, "m"+strconv.Itoa(int(m)))
			emit(trace.Event{T: t, Kind: trace.Send, P: p, To: to, Msg: m})
			tr.Messages = append(tr.Messages, trace.Message{Send: int32(len(tr.Events) - 1), Recv: trace.None})
			pending = append(pending, pend{t: t + 5000, p: to, msg: m})
		default:
			emit(trace.Event{T: t, Kind: trace.Internal, P: p, To: trace.None, Msg: trace.None})
		}
	}
	return tr
}

func BenchmarkReplayMS1M(b *testing.B) {
	tr := synthetic(1_000_000, 16)
	b.ResetTimer()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		a, err := ms.New("", tr)
		if err != nil {
			b.Fatal(err)
		}
		run, err := replay.Run(tr, a, replay.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(tr.Events)), "ns/event")
		_ = run
	}
}
