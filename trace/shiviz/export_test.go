package shiviz

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/internal/golden"
	"github.com/ckpt-dev/ckpt/trace"
)

// failureFreeRun turns a trace into the run a failure-free replay writes
// (SPEC §3: app events identical to the trace's), without the replay
// engine, so that export can be tested on its own.
func failureFreeRun(tr *trace.Trace) *trace.Run {
	run := &trace.Run{Name: tr.Name, Algorithm: "test", Processes: tr.Processes, Msgs: tr.Msgs}
	ops := make([]int32, len(tr.Processes))
	ckpts := make([]int32, len(tr.Processes))
	for _, ev := range tr.Events {
		re := trace.NewRunEvent(ev.Kind, ev.T, ev.P)
		re.Label = run.AddString(tr.Label(&ev))
		switch ev.Kind {
		case trace.Send:
			re.Msg, re.Peer, re.Copy = ev.Msg, ev.To, 1
		case trace.Recv:
			re.Msg, re.Copy, re.Via = ev.Msg, 1, trace.ViaNet
			re.Peer = tr.Events[tr.Messages[ev.Msg].Send].P
		case trace.Internal:
		case trace.Checkpoint:
			ckpts[ev.P]++
			re.Ckpt, re.CkptType, re.Pos = ckpts[ev.P], trace.CkptBasic, ops[ev.P]
		default:
			continue
		}
		if ev.Kind.IsOp() {
			re.Op = ops[ev.P]
			ops[ev.P]++
		}
		re.Seq = int32(len(run.Events))
		run.Events = append(run.Events, re)
	}
	return run
}

// pattern describes a trace's communication pattern: each process's op
// kinds in order ("sri…", by name; processes without ops left out, as
// ShiViz knows hosts only from their events), and each message as
// "p#op->q#op".
func pattern(tr *trace.Trace, skip func(label string) bool) (ops []string, edges []string) {
	kinds := make([]string, len(tr.Processes))
	n := make([]int, len(tr.Processes))
	at := make([]string, len(tr.Events))
	for i, ev := range tr.Events {
		if !ev.Kind.IsOp() || skip(tr.Label(&ev)) {
			continue
		}
		kinds[ev.P] += ev.Kind.String()[:1]
		at[i] = fmt.Sprintf("%s#%d", tr.Processes[ev.P], n[ev.P])
		n[ev.P]++
	}
	for p, k := range kinds {
		if k != "" {
			ops = append(ops, tr.Processes[p]+":"+k)
		}
	}
	for _, m := range tr.Messages {
		if m.Recv >= 0 {
			edges = append(edges, at[m.Send]+"->"+at[m.Recv])
		}
	}
	slices.Sort(ops)
	slices.Sort(edges)
	return ops, edges
}

func noSkip(string) bool { return false }

// envLabel recognises what Export writes for environment events, which
// come back from ShiViz as local events.
func envLabel(l string) bool {
	for _, p := range []string{"checkpoint ", "fail", "restart", "rollback"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// fataler is what testing.TB and *rapid.T share.
type fataler interface {
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

func roundTrip(t fataler, tr *trace.Trace) (*trace.Trace, ExportStats) {
	var buf bytes.Buffer
	st, err := Export(&buf, failureFreeRun(tr))
	if err != nil {
		t.Fatal(err)
	}
	log, err := parseOne("exported.log", &buf, ParseOptions{})
	if err != nil {
		t.Fatalf("re-import: %v\n%s", err, buf.String())
	}
	tr2, _, err := log.Executions[0].Trace("exported.log", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr2, st
}

// TestRoundTripReal exports a failure-free run of every real log (with
// checkpoint ticks, which come back as labelled local events) and checks
// that importing the export gives back the same communication pattern.
func TestRoundTripReal(t *testing.T) {
	dir := realDir(t)
	for _, rl := range realLogs {
		t.Run(rl.file, func(t *testing.T) {
			log := parseFile(t, filepath.Join(dir, rl.file), ParseOptions{Regex: rl.regex, Delimiter: rl.delimiter})
			for _, ex := range log.Executions {
				tr, _, err := ex.Trace(rl.file, ImportOptions{TickEvery: 3})
				if err != nil {
					t.Fatal(err)
				}
				tr2, st := roundTrip(t, tr)
				if st.Hidden != 0 {
					t.Errorf("%d hidden receives in a log that came from vector clocks", st.Hidden)
				}
				ops1, e1 := pattern(tr, noSkip)
				ops2, e2 := pattern(tr2, envLabel)
				if !slices.Equal(ops1, ops2) || !slices.Equal(e1, e2) {
					t.Errorf("pattern changed:\n ops %v\n now %v\n edges %v\n  now %v", ops1, ops2, e1, e2)
				}
			}
		})
	}
}

// TestRoundTripRapid does the same on random communication patterns in
// which every message is received before its sender's causal future can
// reach the receiver another way (otherwise no vector clock can show the
// receive; TestHidden covers that case).
func TestRoundTripRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		np := rapid.IntRange(1, 5).Draw(rt, "procs")
		procs := make([]string, np)
		for i := range procs {
			procs[i] = fmt.Sprintf("P %d", i) // a space, which Export must survive
		}
		b := tracetest.NewBuilder(procs...)
		steps := rapid.IntRange(1, 40).Draw(rt, "steps")
		tm, msg := 0.0, 0
		for s := 0; s < steps; s++ {
			p := rapid.IntRange(0, np-1).Draw(rt, "p")
			q := rapid.IntRange(0, np-1).Draw(rt, "q")
			tm++
			switch {
			case p == q:
				b.Internal(tm, procs[p]).Label("work\tx\ny")
			default:
				msg++
				id := fmt.Sprintf("m%d", msg)
				b.Send(tm, procs[p], procs[q], id)
				if rapid.Bool().Draw(rt, "tick") {
					b.Checkpoint(tm, procs[p])
				}
				tm++
				b.Recv(tm, procs[q], id)
			}
		}
		tr, err := b.Build()
		if err != nil {
			rt.Fatal(err)
		}
		tr2, st := roundTrip(rt, tr)
		ops1, e1 := pattern(tr, noSkip)
		ops2, e2 := pattern(tr2, envLabel)
		if st.Hidden != 0 || !slices.Equal(ops1, ops2) || !slices.Equal(e1, e2) {
			rt.Fatalf("hidden %d; pattern changed:\n ops %v\n now %v\n edges %v\n  now %v", st.Hidden, ops1, ops2, e1, e2)
		}
	})
}

// TestHidden: a message overtaken by a later one from the same sender is
// invisible to vector clocks; Export counts it and the re-import sees a
// local event.
func TestHidden(t *testing.T) {
	tr, err := tracetest.NewBuilder("P0", "P1").
		Send(1, "P0", "P1", "m1").
		Send(2, "P0", "P1", "m2").
		Recv(3, "P1", "m2").
		Recv(4, "P1", "m1").
		Build()
	if err != nil {
		t.Fatal(err)
	}
	tr2, st := roundTrip(t, tr)
	if st.Hidden != 1 {
		t.Errorf("hidden = %d, want 1", st.Hidden)
	}
	ops, edges := pattern(tr2, noSkip)
	if got := strings.Join(ops, " "); got != "P0:is P1:ri" {
		t.Errorf("ops %q", got)
	}
	if len(edges) != 1 {
		t.Errorf("edges %v, want only m2's", edges)
	}
}

// TestExportGolden writes a hand-made run with a failure, a restart, a
// rollback, a resend, a replayed receive and a control message.
func TestExportGolden(t *testing.T) {
	run := &trace.Run{Name: "r.json", Algorithm: "ms", Processes: []string{"P0", "P1"}, Msgs: []string{"m1", "m2"}}
	add := func(kind trace.Kind, p int32, f func(e *trace.RunEvent)) {
		e := trace.NewRunEvent(kind, trace.Time(len(run.Events))*trace.Second, p)
		e.Seq = int32(len(run.Events))
		if f != nil {
			f(&e)
		}
		run.Events = append(run.Events, e)
	}
	add(trace.Send, 0, func(e *trace.RunEvent) { e.Msg, e.Peer, e.Op, e.Copy = 0, 1, 0, 1 })
	add(trace.Checkpoint, 1, func(e *trace.RunEvent) { e.Ckpt, e.CkptType, e.Pos = 1, trace.CkptBasic, 0 })
	add(trace.Recv, 1, func(e *trace.RunEvent) { e.Msg, e.Peer, e.Op, e.Copy, e.Via = 0, 0, 0, 1, trace.ViaNet })
	add(trace.Internal, 1, func(e *trace.RunEvent) { e.Op, e.Label = 1, run.AddString("compute") })
	add(trace.Send, 1, func(e *trace.RunEvent) { e.Msg, e.Peer, e.Op, e.Copy = 1, 0, 2, 1 })
	add(trace.Recv, 0, func(e *trace.RunEvent) { e.Msg, e.Peer, e.Op, e.Copy, e.Via = 1, 1, 1, 1, trace.ViaNet })
	add(trace.Fail, 1, nil)
	add(trace.ControlSend, 1, func(e *trace.RunEvent) { e.Peer, e.Control = 0, trace.ControlRollback })
	add(trace.Restart, 1, func(e *trace.RunEvent) { e.Restore, e.Pos, e.Undone = 1, 0, 3 })
	add(trace.Rollback, 0, func(e *trace.RunEvent) { e.Restore, e.Pos, e.Undone, e.Cause = 0, 1, 1, trace.CauseRequest })
	add(trace.Recv, 1, func(e *trace.RunEvent) { e.Msg, e.Peer, e.Op, e.Copy, e.Via = 0, 0, 0, 1, trace.ViaLog })
	add(trace.Send, 0, func(e *trace.RunEvent) { e.Msg, e.Peer, e.Op, e.Copy, e.Resend, e.Of = 0, 1, 0, 2, true, 1 })
	add(trace.End, 1, func(e *trace.RunEvent) { e.State = trace.StateDone })
	var buf bytes.Buffer
	st, err := Export(&buf, run)
	if err != nil {
		t.Fatal(err)
	}
	if st.Events != 11 || st.Hidden != 1 {
		t.Errorf("stats %+v, want 11 events, 1 hidden (the replayed receive)", st)
	}
	golden.Check(t, "export.golden", buf.Bytes())
	if _, err := parseOne("export.golden", &buf, ParseOptions{}); err != nil {
		t.Errorf("the export does not re-import: %v", err)
	}
}

func TestExportBadName(t *testing.T) {
	run := &trace.Run{Name: "r.json", Processes: []string{"a\tb"}}
	if _, err := Export(&bytes.Buffer{}, run); err == nil || !strings.Contains(err.Error(), "tab or line break") {
		t.Errorf("got %v", err)
	}
}

func BenchmarkExportChord(b *testing.B) {
	log := parseFile(b, filepath.Join(realDir(b), "chord.log"), ParseOptions{Regex: chordRegex})
	tr, _, err := log.Executions[0].Trace("chord.log", ImportOptions{TickEvery: 5})
	if err != nil {
		b.Fatal(err)
	}
	run := failureFreeRun(tr)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Export(io.Discard, run); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(run.Events)), "events")
}

// TestExportManyProcesses: the clocks hold what the lines write, not a
// clock of every process for every process (20,000 processes of three
// events took 1.6 GB): 5,000 processes, two of them sending, allocate
// well under the 100 MB dense clocks took.
func TestExportManyProcesses(t *testing.T) {
	procs := make([]string, 5000)
	for i := range procs {
		procs[i] = fmt.Sprintf("P%d", i)
	}
	b := tracetest.NewBuilder(procs...).Send(1, "P0", "P1", "m1").Recv(2, "P1", "m1")
	tr, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	run := failureFreeRun(tr)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var buf bytes.Buffer
	if _, err := Export(&buf, run); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 10<<20 {
		t.Errorf("exporting allocated %d MiB, want under 10", got>>20)
	}
	if want := "P1\t{\"P0\":1,\"P1\":1}\trecv m1 from P0\n"; !strings.HasSuffix(buf.String(), want) {
		t.Errorf("log ends %q, want %q", buf.String()[buf.Len()-60:], want)
	}
}
