package record_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/ckpt-dev/ckpt/internal/golden"
	"github.com/ckpt-dev/ckpt/record"
	"github.com/ckpt-dev/ckpt/trace"
)

// clock is a fake clock: each reading is step later than the last,
// from start.
func clock(start time.Time, step time.Duration) func() time.Time {
	var mu sync.Mutex
	t := start
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(step)
		return t
	}
}

var epoch = time.Unix(1_700_000_000, 0)

// must returns v, failing the test (by a panic) on an error.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func ok(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// recovery records an MS recovery by hand, one call of each kind: P1
// logs P0's message, fails, restarts from its checkpoint and replays the
// message from its log; its Rollback request rolls P0 back, and P0's
// re-sent message is discarded as stale, and a last one left unconsumed.
// P1's clock runs 10 s behind P0's: the merge must follow causality.
func recovery(t testing.TB) (*bytes.Buffer, *bytes.Buffer) {
	procs := []string{"P0", "P1"}
	var b0, b1 bytes.Buffer
	r0 := record.New("P0", &b0, record.Options{Processes: procs, Algorithm: "ms", Now: clock(epoch.Add(10*time.Second), time.Millisecond)})
	r1 := record.New("P1", &b1, record.Options{Processes: procs, Algorithm: "ms", Now: clock(epoch, time.Millisecond)})
	pb := trace.NewPiggyback()
	pb.Sn = 0
	m := must(r0.SendPB("P1", &pb, []byte("hello")))
	ok(t, r1.CheckpointTaken(record.Ckpt{ID: 1, Type: trace.CkptBasic, Sn: 1}))
	ok(t, r1.Log(m))
	if p := must(r1.Recv(m)); string(p) != "hello" {
		t.Fatalf("payload %q", p)
	}
	ok(t, r1.Internal("audit"))
	ok(t, r1.Fail(time.Time{}))
	body := trace.NewControlBody()
	body.Origin, body.Count, body.R = 1, 1, 1
	f := record.Failure{P: "P1", N: 1}
	ok(t, r1.Restart(record.Restore{Ckpt: 1, Pos: 0, Inc: 1, For: f}))
	c := must(r1.ControlSend("P0", trace.ControlRollback, &body, f))
	ok(t, r1.Hold("P0.0", "log", f))
	ok(t, r1.Unhold("P0.0", f))
	must(r1.Replay(m))
	h := must(r0.ControlRecv(c))
	if h.Body.R != 1 || h.Failure != f {
		t.Fatalf("control header %+v", h)
	}
	ok(t, r0.Rollback(record.Restore{Ckpt: 0, Pos: 0, Cause: trace.CauseRequest, For: f}))
	ok(t, r0.Skipped(1, 1))
	pb.Sn, pb.F = 1, []trace.FEntry{{P: 1, Count: 1}}
	m2 := must(r0.SendPB("P1", &pb, []byte("again")))
	ok(t, r1.Discard(m2, trace.ReasonStale, f))
	m3 := must(r0.SendPB("P1", &pb, []byte("late")))
	ok(t, r0.End(trace.StateDone, ""))
	ok(t, r1.End(trace.StateDone, ""))
	ok(t, r1.Unconsumed(m3))
	ok(t, r0.Close())
	ok(t, r1.Close())
	return &b0, &b1
}

// TestMergeRecovery: the merged run and trace of the hand-made recovery.
func TestMergeRecovery(t *testing.T) {
	b0, b1 := recovery(t)
	golden.Check(t, "recovery.P0.jsonl", b0.Bytes())
	golden.Check(t, "recovery.P1.jsonl", b1.Bytes())
	m := must(record.Merge(record.Input{Name: "P0", R: b0}, record.Input{Name: "P1", R: b1}))
	var run, tr bytes.Buffer
	ok(t, codec.WriteRun(&run, m.Run, codec.WriteOptions{}))
	ok(t, codec.WriteTrace(&tr, m.Trace, codec.WriteOptions{}))
	golden.Check(t, "recovery.run.json", run.Bytes())
	golden.Check(t, "recovery.trace.json", tr.Bytes())
}

// TestTraceOnly: a recording that names no algorithm (GoVector's use)
// merges into a trace alone.
func TestTraceOnly(t *testing.T) {
	var b0, b1 bytes.Buffer
	r0 := record.New("a", &b0, record.Options{Now: clock(epoch, time.Second)})
	r1 := record.New("b", &b1, record.Options{Now: clock(epoch, time.Second)})
	ok(t, r1.Checkpoint())
	w := must(r0.Send("b", []byte("x")))
	must(r1.Recv(w))
	ok(t, r0.Internal(""))
	ok(t, r1.Fail(epoch.Add(time.Hour)))
	ok(t, r0.Flush())
	ok(t, r1.Flush())
	m := must(record.Merge(record.Input{Name: "a", R: &b0}, record.Input{Name: "b", R: &b1}))
	if m.Run != nil {
		t.Fatal("a trace-only recording merged into a run")
	}
	var tr bytes.Buffer
	ok(t, codec.WriteTrace(&tr, m.Trace, codec.WriteOptions{}))
	golden.Check(t, "trace-only.json", tr.Bytes())
}

// TestOpenResumes: a restarted process's recorder carries on the event
// numbers of the file, dropping a line a crash cut short, and refuses
// another process's file.
func TestOpenResumes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "P0.jsonl")
	opt := record.Options{Processes: []string{"P0", "P1"}, Algorithm: "ms", Now: clock(epoch, time.Second)}
	r := must(record.Open("P0", path, opt))
	ok(t, r.Internal("one"))
	ok(t, r.Sync())
	if b := must(os.ReadFile(path)); !strings.Contains(string(b), `"label":"one"`) {
		t.Fatalf("the event is not in the file after Sync:\n%s", b)
	}
	ok(t, r.Close())
	f := must(os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0))
	must(f.WriteString(`{"n":2,"kind":"torn`)) // a crash in mid-write
	ok(t, f.Close())
	r = must(record.Open("P0", path, opt))
	if r.Size() == 0 {
		t.Fatal("Size is 0 after Open of a recording")
	}
	ok(t, r.Fail(time.Time{}))
	ok(t, r.Restart(record.Restore{Ckpt: 0, Pos: 0, Inc: 1, For: record.Failure{P: "P0", N: 1}}))
	ok(t, r.End(trace.StateDone, ""))
	ok(t, r.Close())
	b := must(os.ReadFile(path))
	if n := strings.Count(string(b), `{"n":`); n != 4 || !strings.Contains(string(b), `"n":4,`) || strings.Contains(string(b), "torn") {
		t.Fatalf("resumed recording:\n%s", b)
	}
	if _, err := record.Open("P1", path, opt); err == nil {
		t.Fatal("Open took P0's recording for P1's")
	}
}

// TestConcurrent: one recorder, many goroutines; every event is there,
// numbered once (run with -race).
func TestConcurrent(t *testing.T) {
	var b bytes.Buffer
	r := record.New("P0", &b, record.Options{Buffer: 256})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				ok(t, r.Internal("x"))
			}
		})
	}
	wg.Wait()
	ok(t, r.Close())
	if n := strings.Count(b.String(), `"kind":"internal"`); n != 800 || !strings.Contains(b.String(), `"n":800,`) {
		t.Fatalf("%d internal events", n)
	}
}

// TestMergeRefuses: recordings that contradict themselves or each other
// are refused with a message naming the file and event.
func TestMergeRefuses(t *testing.T) {
	head := `{"format":"ckpt/recording@1","process":"P1","processes":["P0","P1"],"algorithm":"ms"}` + "\n"
	p0 := `{"format":"ckpt/recording@1","process":"P0","processes":["P0","P1"],"algorithm":"ms"}` + "\n" +
		`{"n":1,"ns":5,"c":1,"kind":"send","msg":"P0.0","to":"P1","op":0,"pb":{"f":{},"sn":0}}` + "\n"
	for _, c := range []struct{ name, p1, want string }{
		{"unsent", head + `{"n":1,"ns":1,"c":1,"kind":"recv","msg":"P0.1","from":"P0","tx":1,"op":0,"via":"net"}` + "\n", `p1: line 2 (P1's event n=1, recv): recv of message "P0.1", which P0's recording never sent to P1 (its transmission 1)`},
		{"gap", head + `{"n":2,"ns":1,"c":1,"kind":"internal","op":0}` + "\n", "events are missing"},
		{"kind", head + `{"n":1,"ns":1,"c":1,"kind":"teleport"}` + "\n", "unknown event kind"},
		{"header", `{"format":"ckpt/run@1"}` + "\n", "not a ckpt/recording@1 header"},
		{"after-end", head + `{"n":1,"ns":1,"c":1,"kind":"end","state":"done"}` + "\n" + `{"n":2,"ns":2,"c":2,"kind":"internal","op":0}` + "\n", "follows the process's end"},
		{"failure", head + `{"n":1,"ns":1,"c":1,"kind":"rollback","restore":0,"pos":0,"cause":"request","failure":{"p":"P0","n":1}}` + "\n", "not recorded before it"},
		// Refused by the run decoder the merged run is read by, still
		// naming the recording.
		{"type", head + `{"n":1,"ns":1,"kind":"checkpoint","ckpt":1,"type":"bogus","pos":0,"sn":1}` + "\n", `p1: line 2 (P1's event n=1, checkpoint): `},
	} {
		_, err := record.Merge(record.Input{Name: "p0", R: strings.NewReader(p0)}, record.Input{Name: "p1", R: strings.NewReader(c.p1)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	// A recording forgotten: the header names its process.
	p1 := head + `{"n":1,"ns":1,"c":1,"kind":"recv","msg":"P0.0","from":"P0","tx":1,"op":0,"via":"net"}` + "\n"
	want := `p1: its header names process "P0", whose recording is not among the files: import "P0"'s recording with them`
	if _, err := record.Merge(record.Input{Name: "p1", R: strings.NewReader(p1)}); err == nil || err.Error() != want {
		t.Errorf("P0's recording forgotten: got %v, want %q", err, want)
	}
}

// TestMergeSays: a recording merging cannot place, or one a kill cut,
// is refused in words naming its file and line (a recording of a
// program alone: its last line cut short is dropped, and noted).
func TestMergeSays(t *testing.T) {
	const a, b = `{"format":"ckpt/recording@1","process":"A"}` + "\n", `{"format":"ckpt/recording@1","process":"B"}` + "\n"
	ms := `{"format":"ckpt/recording@1","process":"P0","processes":["P0"],"algorithm":"ms"}` + "\n"
	op := func(n, op int) string {
		return fmt.Sprintf(`{"n":%d,"ns":%d,"kind":"internal","op":%d}`+"\n", n, n*100, op)
	}
	ev := func(n int, kind, rest string) string {
		return fmt.Sprintf(`{"n":%d,"ns":%d,"kind":%q%s}`+"\n", n, n*100, kind, rest)
	}
	end := func(n int, state string) string { return ev(n, "end", `,"state":"`+state+`"`) }
	for _, c := range []struct {
		name string
		recs []string // the recordings of A, B, … (P0 for ms)
		want string   // the error, or the note when the merge succeeds
	}{
		{"no op", []string{a + `{"n":1,"ns":1,"kind":"internal","label":"x"}` + "\n"}, `a: line 2: event n=1 (internal): it lacks "op": every op records its number`},
		{"op missing", []string{a + op(1, 0) + op(2, 2)}, `a: line 3: event n=2 (internal): "op" is 2 where op 1 is due: ops before it are missing`},
		{"op repeated", []string{a + op(1, 0) + op(2, 0)}, `a: line 3: event n=2 (internal): "op" is 0 where op 1 is due: an op repeated without a restart or rollback before it`},
		{"op backwards", []string{a + op(1, 5)}, `a: line 2: event n=1 (internal): "op" is 5 where op 0 is due`},
		{"huge ns", []string{a + `{"n":1,"ns":99999999999999999999999,"kind":"internal","op":0}` + "\n"}, `a: line 2: "ns" holds a JSON number 99999999999999999999999 where a whole number that fits in 64 bits is wanted`},
		{"not json", []string{a + "{not json\n"}, `a: line 2: not valid JSON: invalid character 'n' at start of string (expecting '"')`},
		{"NUL", []string{a + "{\"n\":1,\"ns\":1,\"kind\":\"internal\",\"op\":0,\"label\":\"a\x00b\"}\n"}, `a: line 2: not valid JSON: invalid character '\x00' in string (expecting non-control character) (in "label")`},
		{"not UTF-8", []string{a + "{\"n\":1,\"ns\":1,\"kind\":\"internal\",\"op\":0,\"label\":\"\xff\"}\n"}, `a: line 2 (A's event n=1, internal): not valid JSON: invalid UTF-8 (in "label")`},
		{"array", []string{a + "[1]\n"}, `a: line 2: the line is a JSON array, not an object`},
		{"op -1", []string{a + op(1, -1)}, `a: line 2: event n=1 (internal): "op" is -1: an op's number counts the live ops before it`},
		// A program restarted after a fail takes up at op 0 (from its
		// start, as a recorder Open gives numbers it) or a later one of
		// its own state; never past the ops it had.
		{"restarted from scratch", []string{a + op(1, 0) + op(2, 1) + ev(3, "fail", "") + op(4, 0) + op(5, 1) + op(6, 2)}, ""},
		{"restarted from its state", []string{a + op(1, 0) + op(2, 1) + ev(3, "fail", "") + op(4, 2)}, ""},
		{"restarted from its state, ends up", []string{a + op(1, 0) + op(2, 1) + ev(3, "fail", "") + op(4, 2) + end(5, "done")}, ""},
		{"restarted past its ops", []string{a + op(1, 0) + ev(2, "fail", "") + op(3, 2)}, `a: line 4: event n=3 (internal): "op" is 2 where after the fail at line 3, op 1 or an earlier one (where the restarted program takes up) is due`},
		{"rollback pos", []string{a + op(1, 0) + op(2, 1) + ev(3, "rollback", `,"restore":0,"pos":5,"cause":"request"`) + op(4, 1)}, `a: line 5: event n=4 (internal): "op" is 1 where the rollback at line 4 (pos 5) makes op 5 due`},
		{"two ends", []string{ms + end(1, "done") + end(2, "done")}, `a: line 3: event n=2 (end): a second end (the first is line 2)`},
		{"down but up", []string{ms + ev(1, "fail", "") + ev(2, "restart", `,"restore":0,"pos":0,"inc":1,"failure":{"p":"P0","n":1}`) + end(3, "down")}, `a: line 4: event n=3 (end): it says "down", but the process is up: it restarted at line 3 after its last fail`},
		{"done but down", []string{ms + ev(1, "fail", "") + end(2, "done")}, `a: line 3: event n=2 (end): it says "done", but the process failed at line 2 and did not restart: it ended "down"`},
		{"down, never failed", []string{ms + end(1, "down")}, `a: line 2: event n=1 (end): it says "down", but the process never failed`},
		{"no final newline", []string{ms + op(1, 0) + strings.TrimSuffix(end(2, "done"), "\n")}, ""},
		{"cut after end", []string{ms + end(1, "done") + `{"n":2,"ns":2,"kind":"uncon`}, `a: line 3, after process P0's end (line 2), is cut short (no newline): its recording was cut, or written to after the end`},
		{"version", []string{`{"format":"ckpt/recording@2","process":"A"}` + "\n"}, `a: line 1: a recording of format ckpt/recording@2, which this ckpt does not read (it reads ckpt/recording@1)`},
		{"line repeated", []string{a + op(1, 0) + op(1, 0)}, `a: line 3: event n=1 again, where n=2 is due: a line is repeated or out of order`},
		{"bom", []string{"\ufeff" + a + op(1, 0)}, ""},
		{"cycle", []string{a + `{"n":1,"ns":100,"kind":"recv","msg":"B.1","from":"B","tx":2,"op":0,"via":"net"}` + "\n" + `{"n":2,"ns":200,"kind":"send","msg":"A.1","to":"B","op":1}` + "\n",
			b + `{"n":1,"ns":100,"kind":"recv","msg":"A.1","from":"A","tx":2,"op":0,"via":"net"}` + "\n" + `{"n":2,"ns":200,"kind":"send","msg":"B.1","to":"A","op":1}` + "\n"},
			`the recordings make a cycle of happened-before, which no execution has: a line 2 -> a line 3 -> b line 2 -> b line 3 -> a line 2`},
		{"recv twice", []string{a + `{"n":1,"ns":1,"kind":"recv","msg":"B.0","from":"B","tx":1,"op":0,"via":"net"}` + "\n" + `{"n":2,"ns":2,"kind":"recv","msg":"B.0","from":"B","tx":1,"op":1,"via":"net"}` + "\n",
			b + `{"n":1,"ns":9,"kind":"send","msg":"B.0","to":"A","op":0}` + "\n"}, `a: line 3 (A's event n=2, recv): recv of message "B.0" (B's transmission 1), which line 2 received already: a program without a recovery protocol receives a copy once`},
		{"to itself", []string{a + `{"n":1,"ns":1,"kind":"send","msg":"A.0","to":"A","op":0}` + "\n"}, `a: line 2 (A's event n=1, send): in the trace of first executions, send of "A.0" to itself (A)`},
		{"cut", []string{a + op(1, 0) + `{"n":2,"ns":`}, `note: a: line 3, cut short (no newline), dropped: the process was killed while it wrote it`},
		{"no end", []string{ms + `{"n":1,"ns":1,"kind":"internal","op":0}` + "\n"}, `a: process P0's recording has no end event (line 2 is its last): the process was killed or its recording cut; merge a run's recordings once every process has recorded its end`},
		{"end cut", []string{ms + `{"n":1,"ns":1,"kind":"internal","op":0}` + "\n" + `{"n":2,"ns":2,"kind":"en`}, `a: process P0's recording ends in line 3 cut short (no newline)`},
		{"control from one missing", []string{ms + `{"n":1,"ns":1,"kind":"control_recv","from":"P1","tx":7,"control":"rollback"}` + "\n"}, `a: line 2 (P0's event n=1, control_recv): control_recv of a rollback control message from P1, whose recording is not among the files`},
		{"recording missing", []string{strings.Replace(ms, `["P0"]`, `["P0","P1"]`, 1) + end(1, "done")}, `a: its header names process "P1", whose recording is not among the files: import "P1"'s recording with them`},
	} {
		var in []record.Input
		for i, r := range c.recs {
			in = append(in, record.Input{Name: string(rune('a' + i)), R: strings.NewReader(r)})
		}
		m, err := record.Merge(in...)
		got := ""
		if err != nil {
			got = err.Error()
		} else if len(m.Notes) > 0 {
			got = "note: " + m.Notes[0]
		}
		if !strings.HasPrefix(got, c.want) || (c.want == "") != (got == "") {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

// TestWire: wire bytes carry the header and the payload; other bytes
// are refused.
func TestWire(t *testing.T) {
	var b bytes.Buffer
	r := record.New("P0", &b, record.Options{Processes: []string{"P0", "P1"}})
	pb := trace.NewPiggyback()
	pb.Sn, pb.F = 7, []trace.FEntry{{P: 1, Count: 3}}
	w := must(r.SendPB("P1", &pb, []byte("pay")))
	h, payload, err := record.Parse(w)
	if err != nil || string(payload) != "pay" || h.From != "P0" || h.Msg != "P0.0" || h.Tx != 1 || h.PB.Sn != 7 || h.PB.F[0] != pb.F[0] {
		t.Fatalf("Parse: %+v %q %v", h, payload, err)
	}
	// The layout before the Lamport clock left: its magic byte 0xC5.
	old := append([]byte{0xC5}, w[1:]...)
	for _, bad := range [][]byte{nil, []byte("hello"), w[:5], old} {
		if _, _, err := record.Parse(bad); err == nil {
			t.Errorf("Parse(%q) took it", bad)
		}
	}
}

// FuzzParse: no bytes make Parse panic.
func FuzzParse(f *testing.F) {
	var b bytes.Buffer
	r := record.New("P0", &b, record.Options{Processes: []string{"P0", "P1"}})
	pb := trace.NewPiggyback()
	w, _ := r.SendPB("P1", &pb, []byte("x"))
	body := trace.NewControlBody()
	c, _ := r.ControlSend("P1", trace.ControlRollback, &body, record.Failure{P: "P0", N: 1})
	f.Add(w)
	f.Add(c)
	f.Fuzz(func(t *testing.T, b []byte) { record.Parse(b) })
}

// FuzzMerge: no recording makes Merge panic.
func FuzzMerge(f *testing.F) {
	b0, b1 := recovery(f)
	f.Add(b0.Bytes(), b1.Bytes())
	f.Fuzz(func(t *testing.T, p0, p1 []byte) {
		record.Merge(record.Input{Name: "p0", R: bytes.NewReader(p0)}, record.Input{Name: "p1", R: bytes.NewReader(p1)})
	})
}

// TestMergeTimeRange: recorded times further apart than ckpt's time
// range are refused, not wrapped around.
func TestMergeTimeRange(t *testing.T) {
	rec := `{"format":"ckpt/recording@1","process":"P0"}` + "\n" +
		`{"n":1,"ns":-9000000000000000000,"c":1,"kind":"internal","op":0}` + "\n" +
		`{"n":2,"ns":9000000000000000000,"c":2,"kind":"internal","op":1}` + "\n"
	_, err := record.Merge(record.Input{Name: "p0", R: strings.NewReader(rec)})
	if err == nil || !strings.Contains(err.Error(), "span more than") {
		t.Fatalf("got %v, want the times refused", err)
	}
}

// TestOpenResumesEnds: Open finds the last whole event across the
// blocks it reads backwards, and starts afresh on a header cut short.
func TestOpenResumesEnds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "P0.jsonl")
	opt := record.Options{Now: clock(epoch, time.Second)}
	r := must(record.Open("P0", path, opt))
	ok(t, r.Internal("a"))
	ok(t, r.Internal(strings.Repeat("x", 150<<10))) // longer than a block
	ok(t, r.Close())
	f := must(os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0))
	must(f.WriteString(strings.Repeat("y", 70<<10))) // a torn line, over a block too
	ok(t, f.Close())
	r = must(record.Open("P0", path, opt))
	ok(t, r.Internal("b"))
	ok(t, r.Close())
	b := must(os.ReadFile(path))
	if !strings.Contains(string(b), `{"n":3,`) || strings.Contains(string(b), "yyy") {
		t.Fatalf("resumed recording ends %q", b[max(len(b)-200, 0):])
	}
	// Blank lines after the last event are skipped, as reading skips them.
	ok(t, os.WriteFile(path, append(b, "\n \r\n"...), 0o644))
	r = must(record.Open("P0", path, opt))
	ok(t, r.Internal("c"))
	ok(t, r.Close())
	if b := must(os.ReadFile(path)); !strings.Contains(string(b), `{"n":4,`) {
		t.Fatalf("a recording ending in blank lines resumed as %q", b[max(len(b)-200, 0):])
	}
	ok(t, os.WriteFile(path, []byte(`{"format":"ckpt/rec`), 0o644))
	r = must(record.Open("P0", path, opt))
	ok(t, r.Close())
	if b := must(os.ReadFile(path)); !strings.HasPrefix(string(b), `{"format":"ckpt/recording@1","process":"P0"}`+"\n") {
		t.Fatalf("a header cut short was not rewritten: %q", b)
	}
	// A file of other text without a newline is no recording: refused,
	// and left as it was.
	ok(t, os.WriteFile(path, []byte("my notes"), 0o644))
	if _, err := record.Open("P0", path, opt); err == nil || string(must(os.ReadFile(path))) != "my notes" {
		t.Fatalf("Open took a one-line file of other text (%v)", err)
	}
}

// TestRestartedProgram: a program without a protocol, killed and
// restarted (record.Open, then Fail, as docs/record.md says), runs again
// from its start; its recording merges, re-executions once, into the
// trace of its first executions and the ops after them.
func TestRestartedProgram(t *testing.T) {
	dir := t.TempDir()
	pa, pb := filepath.Join(dir, "A.jsonl"), filepath.Join(dir, "B.jsonl")
	opt := record.Options{Now: clock(epoch, time.Millisecond)}
	a, b := must(record.Open("A", pa, opt)), must(record.Open("B", pb, opt))
	w := must(a.Send("B", []byte("x")))
	ok(t, a.Internal("work"))
	ok(t, a.Flush()) // killed here
	a = must(record.Open("A", pa, opt))
	ok(t, a.Fail(time.Time{}))
	must(a.Send("B", []byte("x"))) // its program again: the same message
	ok(t, a.Internal("work"))
	ok(t, a.Internal("new"))
	must(b.Recv(w))
	ok(t, a.Close())
	ok(t, b.Close())
	m, err := record.MergeFiles(nil, pa, pb)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := range m.Trace.Events {
		e := &m.Trace.Events[i]
		got = append(got, m.Trace.Processes[e.P]+" "+e.Kind.String()+" "+m.Trace.Label(e))
	}
	if want := "A send |A internal work|A fail |A internal new|B recv "; strings.Join(got, "|") != want {
		t.Errorf("trace %q, want %q", strings.Join(got, "|"), want)
	}
}

// TestCutGzip: a gzipped recording cut short is said to be, naming the
// line, as every cut compressed input is.
func TestCutGzip(t *testing.T) {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	rec := `{"format":"ckpt/recording@1","process":"A"}` + "\n" + strings.Repeat(`{"n":1,"ns":1,"kind":"checkpoint"}`+"\n", 1)
	must(zw.Write([]byte(rec)))
	ok(t, zw.Close())
	zr := must(codec.OpenInput(bytes.NewReader(z.Bytes()[:z.Len()-12]))) // as MergeFiles opens it
	_, err := record.Merge(record.Input{Name: "a.gz", R: zr})
	if want := ": truncated input (unexpected end of compressed data)"; err == nil || !strings.HasPrefix(err.Error(), "a.gz: line ") || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("got %v, want a.gz: line N%s", err, want)
	}
}
