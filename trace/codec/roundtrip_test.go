package codec

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/ckpt-dev/ckpt/trace"

	"pgregory.net/rapid"
)

// Names that exercise the string escaper: quotes, backslashes, control
// characters, HTML-sensitive bytes, non-ASCII, line separators.
var trickySuffixes = []string{"", "", "", `"`, `\`, "\x01", "\n", "<&>", "é", "日本", "\u2028", "/", "😀"}

func drawName(t *rapid.T, prefix string, i int, label string) string {
	return fmt.Sprintf("%s%d", prefix, i) + rapid.SampledFrom(trickySuffixes).Draw(t, label)
}

func drawTime(t *rapid.T, label string) trace.Time {
	switch rapid.IntRange(0, 3).Draw(t, label+"-shape") {
	case 0:
		return 0
	case 1:
		return trace.Time(rapid.Int64Range(1, 10).Draw(t, label)) * trace.Second / 10
	case 2:
		return trace.Time(rapid.Int64Range(1, int64(1000*trace.Second)).Draw(t, label))
	default:
		return trace.Time(rapid.Int64Range(1, int64(trace.MaxTime)/1000).Draw(t, label))
	}
}

// genTrace draws a valid trace.
func genTrace(t *rapid.T) *trace.Trace {
	n := rapid.IntRange(1, 4).Draw(t, "procs")
	tr := &trace.Trace{Name: "gen"}
	for i := 0; i < n; i++ {
		tr.Processes = append(tr.Processes, drawName(t, "P", i, "proc"))
	}
	if rapid.Bool().Draw(t, "params") {
		tr.Params = trace.Params{RestartDelay: drawTime(t, "rd"), ControlDelay: drawTime(t, "cd"), DefaultDelay: drawTime(t, "dd")}
	}
	var pending []int32 // sent, not yet received messages
	now := trace.Time(0)
	for e, ne := 0, rapid.IntRange(0, 40).Draw(t, "events"); e < ne; e++ {
		if now < trace.MaxTime/2 {
			now += drawTime(t, "dt") / 1000
		}
		ev := trace.Event{T: now, P: int32(rapid.IntRange(0, n-1).Draw(t, "p")), To: trace.None, Msg: trace.None}
		ev.Kind = rapid.SampledFrom([]trace.Kind{trace.Send, trace.Send, trace.Recv, trace.Recv, trace.Internal, trace.Checkpoint, trace.Flush, trace.Fail}).Draw(t, "kind")
		switch {
		case ev.Kind == trace.Send && n > 1:
			ev.To = int32((int(ev.P) + rapid.IntRange(1, n-1).Draw(t, "to")) % n)
			ev.Msg = int32(len(tr.Msgs))
			tr.Msgs = append(tr.Msgs, drawName(t, "m", len(tr.Msgs), "msg"))
			pending = append(pending, ev.Msg)
		case ev.Kind == trace.Recv && len(pending) > 0:
			k := rapid.IntRange(0, len(pending)-1).Draw(t, "which")
			ev.Msg = pending[k]
			pending = append(pending[:k], pending[k+1:]...)
			// The receiver is the send's "to"; find it.
			for i := range tr.Events {
				if tr.Events[i].Kind == trace.Send && tr.Events[i].Msg == ev.Msg {
					ev.P = tr.Events[i].To
				}
			}
		case ev.Kind == trace.Send || ev.Kind == trace.Recv:
			ev.Kind = trace.Internal
		case ev.Kind == trace.Fail && rapid.Bool().Draw(t, "hasDown"):
			ev.Down = drawTime(t, "down") + 1
		}
		if rapid.IntRange(0, 4).Draw(t, "hasLabel") == 0 {
			ev.Label = tr.AddLabel(rapid.String().Draw(t, "label"))
		}
		tr.Events = append(tr.Events, ev)
	}
	if err := trace.Validate(tr); err != nil {
		t.Fatalf("generated an invalid trace: %v", err)
	}
	return tr
}

var allWriteOptions = []WriteOptions{{}, {JSONL: true}, {Gzip: true}, {JSONL: true, Gzip: true}, {Compact: true}, {JSONL: true, Compact: true}}

func TestTraceRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tr := genTrace(t)
		opts := rapid.SampledFrom(allWriteOptions).Draw(t, "opts")
		var enc1 bytes.Buffer
		if err := WriteTrace(&enc1, tr, opts); err != nil {
			t.Fatal(err)
		}
		got, err := ReadTrace("gen", bytes.NewReader(enc1.Bytes()))
		if err != nil {
			t.Fatalf("decoding what WriteTrace wrote: %v\n%s", err, enc1.Bytes())
		}
		if !reflect.DeepEqual(normTrace(got), normTrace(tr)) {
			t.Fatalf("round trip changed the trace\nwant %+v\ngot  %+v", tr, got)
		}
		var enc2 bytes.Buffer
		if err := WriteTrace(&enc2, got, opts); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(enc1.Bytes(), enc2.Bytes()) {
			t.Fatalf("re-encoding differs:\n%s\n%s", enc1.Bytes(), enc2.Bytes())
		}
	})
}

// normTrace makes empty and nil slices compare equal.
func normTrace(tr *trace.Trace) trace.Trace {
	c := *tr
	if len(c.Msgs) == 0 {
		c.Msgs, c.Messages = nil, nil
	}
	if len(c.Events) == 0 {
		c.Events = nil
	}
	return c
}

// genRun draws a structurally valid run with every field exercised,
// every algorithm's piggyback shape among them.
func genRun(t *rapid.T) *trace.Run {
	n := rapid.IntRange(1, 4).Draw(t, "procs")
	run := &trace.Run{Name: "gen", Algorithm: rapid.SampledFrom([]string{"acme", "acme-textbook", "x", "foreign \"x\""}).Draw(t, "alg")}
	for i := 0; i < n; i++ {
		run.Processes = append(run.Processes, drawName(t, "P", i, "proc"))
	}
	run.Options.Params = trace.Params{RestartDelay: drawTime(t, "rd"), ControlDelay: drawTime(t, "cd"), DefaultDelay: drawTime(t, "dd")}
	run.Options.Variant = rapid.SampledFrom([]string{"", "textbook"}).Draw(t, "variant")
	run.Source = rapid.SampledFrom([]string{"", "testdata/traces/forced.json"}).Draw(t, "source")
	nm := rapid.IntRange(0, 5).Draw(t, "msgs")
	for i := 0; i < nm; i++ {
		run.Msgs = append(run.Msgs, drawName(t, "m", i, "msg"))
	}
	optInt := func(label string) int32 {
		if rapid.Bool().Draw(t, label+"?") {
			return int32(rapid.IntRange(0, 1<<31-1).Draw(t, label))
		}
		return trace.None
	}
	drawVT := func(label string) trace.VT {
		vt := make(trace.VT, n)
		for i := range vt {
			vt[i] = trace.VTEntry{Inc: int32(rapid.IntRange(0, 5).Draw(t, label)), Count: int32(rapid.IntRange(0, 1000).Draw(t, label))}
		}
		return vt
	}
	drawInts := func(label string) []int32 {
		v := make([]int32, n)
		for i := range v {
			v[i] = int32(rapid.IntRange(0, 1<<31-1).Draw(t, label))
		}
		return v
	}
	drawBits := func(label string) []bool {
		v := make([]bool, n)
		for i := range v {
			v[i] = rapid.Bool().Draw(t, label)
		}
		return v
	}
	kinds := []trace.Kind{trace.Send, trace.Recv, trace.Internal, trace.Checkpoint, trace.Fail, trace.CheckpointSkipped, trace.Log, trace.Discard, trace.Hold, trace.Unhold, trace.Restart, trace.Rollback, trace.ControlSend, trace.ControlRecv, trace.Resume, trace.End, trace.Unconsumed}
	now := trace.Time(0)
	for e, ne := 0, rapid.IntRange(0, 30).Draw(t, "events"); e < ne; e++ {
		now += drawTime(t, "dt") / 1000
		ev := trace.NewRunEvent(rapid.SampledFrom(kinds).Draw(t, "kind"), now, int32(rapid.IntRange(0, n-1).Draw(t, "p")))
		ev.Seq = int32(e)
		if nm > 0 && rapid.Bool().Draw(t, "hasMsg") {
			ev.Msg = int32(rapid.IntRange(0, nm-1).Draw(t, "msg"))
		}
		switch ev.Kind {
		case trace.Send, trace.Recv, trace.ControlSend, trace.ControlRecv:
			if rapid.Bool().Draw(t, "hasPeer") {
				ev.Peer = int32(rapid.IntRange(0, n-1).Draw(t, "peer"))
			}
		}
		ev.Op = optInt("op")
		ev.Copy = int32(rapid.IntRange(0, 3).Draw(t, "copy"))
		ev.Of = int32(rapid.IntRange(0, 3).Draw(t, "of"))
		ev.Resend = rapid.Bool().Draw(t, "resend") && ev.Kind == trace.Send // only a send is a resend
		ev.Via = trace.Via(rapid.IntRange(0, 2).Draw(t, "via"))
		if rapid.IntRange(0, 2).Draw(t, "hasPB") == 0 {
			pb := trace.NewPiggyback()
			pb.Sn = optInt("sn")
			switch rapid.IntRange(0, 5).Draw(t, "pbShape") {
			case 0: // MS
				for p := 0; p < n; p++ {
					if rapid.Bool().Draw(t, "f?") {
						pb.F = append(pb.F, trace.FEntry{P: int32(p), Count: int32(rapid.IntRange(0, 9).Draw(t, "f"))})
					}
				}
				if pb.F == nil {
					pb.F = []trace.FEntry{}
				}
			case 1: // textbook
				pb.Inc, pb.RecLine = optInt("pbinc"), optInt("recline")
			case 2: // PK
				pb.VT = drawVT("pbvt")
			case 4: // FDAS
				pb.Sn, pb.CIC = trace.None, &trace.CIC{LC: trace.None, DV: drawInts("dv")}
			case 5: // HMNR, or a foreign run's subset of its fields
				c := &trace.CIC{LC: optInt("lc")}
				if rapid.IntRange(0, 3).Draw(t, "ckpt?") > 0 {
					c.Ckpt = drawInts("ckpt")
				}
				if rapid.IntRange(0, 3).Draw(t, "taken?") > 0 {
					c.Taken = drawBits("taken")
				}
				if rapid.IntRange(0, 3).Draw(t, "greater?") > 0 {
					c.Greater = drawBits("greater")
				}
				pb.Sn, pb.CIC = trace.None, c
			}
			ev.PB = run.AddPB(&pb)
		}
		ev.Ckpt = optInt("ckpt")
		ev.CkptType = trace.CkptType(rapid.IntRange(0, 4).Draw(t, "type"))
		ev.Pos = optInt("pos")
		ev.Sn = optInt("evsn")
		if rapid.Bool().Draw(t, "hasVT") {
			ev.VT = run.AddVT(drawVT("vt"))
		}
		ev.Next = optInt("next")
		ev.Reason = trace.Reason(rapid.IntRange(0, 4).Draw(t, "reason"))
		ev.Restore = optInt("restore")
		ev.Undone = optInt("undone")
		ev.Inc = optInt("inc")
		ev.Cause = trace.Cause(rapid.IntRange(0, 3).Draw(t, "cause"))
		ev.Control = trace.Control(rapid.IntRange(0, 2).Draw(t, "control"))
		if rapid.IntRange(0, 3).Draw(t, "hasBody") == 0 {
			b := trace.NewControlBody()
			if rapid.Bool().Draw(t, "origin?") {
				b.Origin = int32(rapid.IntRange(0, n-1).Draw(t, "origin"))
			}
			b.Count, b.R, b.Inc, b.K = optInt("count"), optInt("r"), optInt("binc"), optInt("k")
			if nm > 0 && rapid.Bool().Draw(t, "received?") {
				b.Received = []trace.Identity{}
				for j := rapid.IntRange(0, 3).Draw(t, "nrec"); j > 0; j-- {
					b.Received = append(b.Received, trace.Identity{Msg: int32(rapid.IntRange(0, nm-1).Draw(t, "rmsg")), Inc: int32(rapid.IntRange(0, 3).Draw(t, "rinc"))})
				}
			}
			ev.Body = run.AddBody(&b)
		}
		ev.State = trace.EndState(rapid.IntRange(0, 4).Draw(t, "state"))
		if rapid.IntRange(0, 3).Draw(t, "until?") == 0 {
			ev.Until = run.AddString(rapid.String().Draw(t, "until"))
		}
		ev.Failure = optInt("failure")
		if rapid.IntRange(0, 3).Draw(t, "label?") == 0 {
			ev.Label = run.AddString(rapid.String().Draw(t, "label"))
		}
		run.Events = append(run.Events, ev)
	}
	return run
}

func TestRunRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		run := genRun(t)
		opts := rapid.SampledFrom(allWriteOptions).Draw(t, "opts")
		var enc1, enc2, enc3 bytes.Buffer
		if err := WriteRun(&enc1, run, opts); err != nil {
			t.Fatal(err)
		}
		r1, err := ReadRun("gen", bytes.NewReader(enc1.Bytes()))
		if err != nil {
			t.Fatalf("decoding what WriteRun wrote: %v\n%s", err, enc1.Bytes())
		}
		if err := WriteRun(&enc2, r1, opts); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(enc1.Bytes(), enc2.Bytes()) {
			t.Fatalf("re-encoding differs:\n%s\n%s", enc1.Bytes(), enc2.Bytes())
		}
		r2, err := ReadRun("gen", bytes.NewReader(enc2.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(r1, r2) {
			t.Fatalf("decode→encode→decode changed the run\n%+v\n%+v", r1, r2)
		}
		// The decoded run means what the original meant: same events
		// once message indexes are mapped through the names.
		if len(r1.Events) != len(run.Events) {
			t.Fatalf("%d events, want %d", len(r1.Events), len(run.Events))
		}
		if err := WriteRun(&enc3, r1, WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		var enc0 bytes.Buffer
		if err := WriteRun(&enc0, run, WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(enc0.Bytes(), enc3.Bytes()) {
			t.Fatalf("decoded run differs from the original:\n%s\n%s", enc0.Bytes(), enc3.Bytes())
		}
	})
}
