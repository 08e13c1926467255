package measure

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/internal/golden"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// zigzag is the domino pattern: in each round P1 ticks and sends x_k to
// P0, which receives it, ticks and answers y_k. Then P0 fails, and later
// P1. P2 only computes.
func zigzag(t *testing.T) *trace.Trace {
	b := tracetest.NewBuilder("P0", "P1", "P2").Internal(0, "P2")
	tm := 1.0
	for k := 1; k <= 3; k++ {
		x, y := "x"+strconv.Itoa(k), "y"+strconv.Itoa(k)
		b.Checkpoint(tm, "P1").
			Send(tm+0.1, "P1", "P0", x).
			Recv(tm+0.2, "P0", x).
			Checkpoint(tm+0.3, "P0").
			Send(tm+0.4, "P0", "P1", y).
			Recv(tm+0.5, "P1", y)
		tm++
	}
	tr, err := b.Fail(tm, "P0").Fail(tm+2, "P1").Build()
	if err != nil {
		t.Fatal(err)
	}
	tr.Name = "zigzag"
	return tr
}

// calm checkpoints so that no tick is useless: P1's receipt of a is
// after its tick, and b is received after P0's.
func calm(t *testing.T) *trace.Trace {
	tr, err := tracetest.NewBuilder("P0", "P1").
		Internal(0.1, "P0").
		Checkpoint(0.2, "P0").
		Internal(0.3, "P1").
		Checkpoint(0.4, "P1").
		Send(0.5, "P0", "P1", "a").
		Recv(0.6, "P1", "a").
		Send(0.7, "P1", "P0", "b").
		Recv(0.8, "P0", "b").
		Fail(1, "P0").
		Checkpoint(1.1, "P1").  // after P0's failure: not P0's baseline
		Checkpoint(1.15, "P0"). // P0 stays at it for P1's failure
		Fail(1.2, "P1").        // right after a tick: loses nothing
		Checkpoint(1.3, "P1").  // same position, but after the failure
		Build()
	if err != nil {
		t.Fatal(err)
	}
	tr.Name = "calm"
	return tr
}

type entry = report.UncoordinatedEntry

func TestUncoordinated(t *testing.T) {
	tests := []struct {
		name    string
		tr      func(*testing.T) *trace.Trace
		domino  bool
		undone  int
		useless int
		lines   [][]entry
	}{
		{
			// P0 loses y_3, which P1 received; P1 goes back to its tick
			// before that receipt and so loses x_3, which P0 received
			// before its tick 3; and so on down to the start. P1 stops
			// at its first tick (position 0), P0 at its initial
			// checkpoint. P1's failure dominoes the same way from x_3.
			name: "zigzag", tr: zigzag, domino: true, undone: 24, useless: 5,
			lines: [][]entry{
				{
					{P: "P0", Ckpt: 0, Pos: 0, Undone: 6, Domino: true},
					{P: "P1", Ckpt: 1, Pos: 0, Undone: 6, Domino: true},
					{P: "P2", Ckpt: -1, Pos: 1, Undone: 0},
				},
				{
					{P: "P0", Ckpt: 0, Pos: 0, Undone: 6, Domino: true},
					{P: "P1", Ckpt: 1, Pos: 0, Undone: 6, Domino: true},
					{P: "P2", Ckpt: -1, Pos: 1, Undone: 0},
				},
			},
		},
		{
			// P0 restarts from its tick and forgets a; P1 returns to
			// its tick, which precedes the receipt of a, and stops:
			// b's receipt is after P0's tick.
			name: "calm", tr: calm, domino: false, undone: 4, useless: 0,
			lines: [][]entry{
				{
					{P: "P0", Ckpt: 1, Pos: 1, Undone: 2},
					{P: "P1", Ckpt: 1, Pos: 1, Undone: 2},
				},
				{
					{P: "P0", Ckpt: 2, Pos: 3, Undone: 0},
					{P: "P1", Ckpt: 2, Pos: 3, Undone: 0},
				},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := tc.tr(t)
			got, err := Uncoordinated(tr)
			if err != nil {
				t.Fatal(err)
			}
			if got.Domino != tc.domino || got.Undone != tc.undone || got.Useless != tc.useless {
				t.Fatalf("domino %v undone %d useless %d; want %v %d %d",
					got.Domino, got.Undone, got.Useless, tc.domino, tc.undone, tc.useless)
			}
			if len(got.Line) != len(tc.lines) {
				t.Fatalf("%d failures, want %d", len(got.Line), len(tc.lines))
			}
			fails := 0
			for i, f := range got.Line {
				for fails < len(tr.Events) && tr.Events[fails].Kind != trace.Fail {
					fails++
				}
				if f.Failure.Seq != int32(fails) || f.Failure.P != tr.Processes[tr.Events[fails].P] {
					t.Fatalf("failure %d: %+v, want event %d", i, f.Failure, fails)
				}
				fails++
				if !slices.Equal(f.Line, tc.lines[i]) {
					t.Fatalf("failure %d:\n got  %+v\n want %+v", i, f.Line, tc.lines[i])
				}
				dom := false
				for _, e := range f.Line {
					dom = dom || e.Domino
				}
				if f.Domino != dom {
					t.Fatalf("failure %d: domino %v, entries say %v", i, f.Domino, dom)
				}
			}
			b, err := json.MarshalIndent(got, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, tc.name+".golden.json", append(b, '\n'))
		})
	}
}

func TestNoFailure(t *testing.T) {
	tr, err := tracetest.NewBuilder("P0", "P1").
		Send(0, "P0", "P1", "m").Checkpoint(1, "P0").Build()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Uncoordinated(tr)
	if err != nil {
		t.Fatal(err)
	}
	if got.Line == nil || len(got.Line) != 0 || got.Domino || got.Undone != 0 || got.Useless != 0 {
		t.Fatalf("got %+v", got)
	}
	b, _ := json.Marshal(got)
	if !bytes.Contains(b, []byte(`"line":[]`)) {
		t.Fatalf("line must encode as []: %s", b)
	}
}

// TestBadInput feeds unvalidated traces: an index out of range is an
// error naming the event; a trace that breaks SPEC §2's message rules
// (the decoder's and trace.Validate's to refuse) never makes it panic.
func TestBadInput(t *testing.T) {
	ev := func(k trace.Kind, p, to, msg int32) trace.Event {
		return trace.Event{Kind: k, P: p, To: to, Msg: msg}
	}
	tests := []struct {
		name   string
		events []trace.Event
		event  int
	}{
		{"unknown process", []trace.Event{ev(trace.Internal, 5, -1, -1)}, 0},
		{"unknown message", []trace.Event{ev(trace.Send, 0, 1, 7)}, 0},
		{"run kind", []trace.Event{ev(trace.Rollback, 0, -1, -1)}, 0},
		{"send to self", []trace.Event{ev(trace.Send, 0, 0, 0), ev(trace.Fail, 0, -1, -1)}, -1},
		{"send to nobody", []trace.Event{ev(trace.Send, 0, 9, 0), ev(trace.Fail, 0, -1, -1)}, -1},
		{"recv before send", []trace.Event{ev(trace.Internal, 0, -1, -1), ev(trace.Recv, 1, -1, 0), ev(trace.Fail, 0, -1, -1)}, -1},
		{"recv by the wrong process", []trace.Event{ev(trace.Send, 0, 1, 0), ev(trace.Recv, 0, -1, 0), ev(trace.Fail, 1, -1, -1)}, -1},
		{"recv twice", []trace.Event{ev(trace.Send, 0, 1, 0), ev(trace.Recv, 1, -1, 0), ev(trace.Recv, 1, -1, 0), ev(trace.Fail, 1, -1, -1)}, -1},
		{"send twice", []trace.Event{ev(trace.Send, 0, 1, 0), ev(trace.Send, 0, 1, 0), ev(trace.Fail, 1, -1, -1)}, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := &trace.Trace{Name: "bad.json", Processes: []string{"P0", "P1"}, Msgs: []string{"m"}, Events: tc.events}
			_, err := Uncoordinated(tr)
			if tc.event < 0 {
				return // judged on anything but not panicking
			}
			ie, ok := err.(*trace.InputError)
			if !ok {
				t.Fatalf("error %v, want an *trace.InputError", err)
			}
			if ie.File != "bad.json" || ie.Event != tc.event {
				t.Fatalf("error %q names event %d of %q, want %d", ie, ie.Event, ie.File, tc.event)
			}
		})
	}
}

// bigTrace is a trace of m messages over procs processes, each received
// soon after it is sent, with a tick per process every 8 ops on average
// and a few failures spread over the trace.
func bigTrace(procs, m, failures int) *trace.Trace {
	x := uint64(0x9E3779B97F4A7C15)
	next := func(n int) int {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return int(x % uint64(n))
	}
	tr := &trace.Trace{Name: "big", Msgs: make([]string, m), Messages: make([]trace.Message, m)}
	for p := 0; p < procs; p++ {
		tr.Processes = append(tr.Processes, "P"+strconv.Itoa(p))
	}
	tr.Events = make([]trace.Event, 0, 2*m+m/4+failures)
	var inflight []int32
	sent := 0
	for sent < m || len(inflight) > 0 {
		p := int32(next(procs))
		if failures > 0 && len(tr.Events)%(2*m/failures+1) == 2*m/failures {
			tr.Events = append(tr.Events, trace.Event{T: trace.Time(len(tr.Events)), Kind: trace.Fail, P: p, To: trace.None, Msg: trace.None})
		}
		ev := trace.Event{T: trace.Time(len(tr.Events)), P: p, To: trace.None, Msg: trace.None}
		switch r := next(16); {
		case len(inflight) > 0 && (sent >= m || r < 7):
			j := next(len(inflight))
			mi := inflight[j]
			inflight[j] = inflight[len(inflight)-1]
			inflight = inflight[:len(inflight)-1]
			ev.Kind, ev.P, ev.Msg = trace.Recv, tr.Events[tr.Messages[mi].Send].To, mi
			tr.Messages[mi].Recv = int32(len(tr.Events))
		case r < 14 && sent < m:
			ev.Kind, ev.Msg = trace.Send, int32(sent)
			ev.To = (p + 1 + int32(next(procs-1))) % int32(procs)
			tr.Msgs[sent] = "m" + strconv.Itoa(sent)
			tr.Messages[sent] = trace.Message{Send: int32(len(tr.Events)), Recv: trace.None}
			inflight = append(inflight, int32(sent))
			sent++
		default:
			ev.Kind = trace.Checkpoint
		}
		tr.Events = append(tr.Events, ev)
	}
	return tr
}

func BenchmarkUncoordinated1M(b *testing.B) {
	tr := bigTrace(16, 1_000_000, 4)
	b.ReportAllocs()
	var res report.Uncoordinated
	var err error
	for b.Loop() {
		if res, err = Uncoordinated(tr); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(res.Line)), "failures")
	b.ReportMetric(float64(res.Undone), "undone")
	b.ReportMetric(float64(res.Useless), "useless")
}
