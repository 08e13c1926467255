package ms_test

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"
	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/algorithms/mutants"
	"github.com/ckpt-dev/ckpt/internal/golden"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/replay/replaytest"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen/gentest"
)

func sec(s float64) trace.Time { t, _ := trace.FromSeconds(s); return t }

func mustRun(t *testing.T, tr *trace.Trace, variant string) *trace.Run {
	t.Helper()
	a, err := mutants.New("ms", variant, tr)
	if err != nil {
		t.Fatal(err)
	}
	run, err := replay.Run(tr, a, replay.Options{Variant: variant})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// find returns the lines of run (replaytest.Lines) that contain every fragment.
func find(run *trace.Run, frags ...string) []string {
	var out []string
	for _, l := range replaytest.Lines(run) {
		ok := true
		for _, f := range frags {
			if !strings.Contains(l, f) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, l)
		}
	}
	return out
}

type goldenCase struct {
	name  string
	build func() *tracetest.Builder
	// must lists fragments (space-separated within one string, all on one
	// line) that the run must contain: the point of the case.
	must []string
}

var cases = []goldenCase{
	{
		name: "forced",
		build: func() *tracetest.Builder {
			return tracetest.NewBuilder("P0", "P1").
				Checkpoint(0.1, "P0").
				Send(0.2, "P0", "P1", "m1").
				Recv(0.5, "P1", "m1")
		},
		must: []string{`"p":"P1","kind":"checkpoint","ckpt":1,"type":"forced","pos":0,"sn":1`, `"p":"P1","kind":"recv","msg":"m1"`},
	},
	{
		name: "skipped",
		build: func() *tracetest.Builder {
			return tracetest.NewBuilder("P0", "P1").
				Checkpoint(0.1, "P0").
				Checkpoint(0.15, "P0").
				Send(0.2, "P0", "P1", "m1").
				Recv(0.5, "P1", "m1").
				Checkpoint(0.6, "P1").
				Checkpoint(0.7, "P1").
				Checkpoint(0.8, "P1")
		},
		must: []string{`"p":"P1","kind":"checkpoint","ckpt":1,"type":"forced","pos":0,"sn":2`, `"p":"P1","kind":"checkpoint_skipped","sn":2,"next":1`,
			`"p":"P1","kind":"checkpoint_skipped","sn":2,"next":2`, `"p":"P1","kind":"checkpoint","ckpt":2,"type":"basic","pos":1,"sn":3`},
	},
	{
		// P1 logs m1 (sn 0 < 2); after its failure it replays m1 from the
		// log, and P2 discards the first copy of m2, whose send the
		// failure undid, then receives the re-sent copy.
		name: "replay-and-stale",
		build: func() *tracetest.Builder {
			return tracetest.NewBuilder("P0", "P1", "P2").
				Checkpoint(0.1, "P1").
				Checkpoint(0.2, "P1").
				Send(0.3, "P0", "P1", "m1").
				Recv(0.5, "P1", "m1").
				Send(0.6, "P1", "P2", "m2").
				Fail(1.0, "P1").
				Recv(3.0, "P2", "m2")
		},
		must: []string{`"p":"P1","kind":"log","msg":"m1","op":0,"copy":1`, `"p":"P1","kind":"recv","msg":"m1","from":"P0","op":0,"copy":1,"via":"log"`,
			`"p":"P2","kind":"discard","msg":"m2","copy":1,"reason":"stale"`, `"p":"P2","kind":"recv","msg":"m2","from":"P1","op":0,"copy":2,"via":"net"`},
	},
	{
		// Case 1: the re-sent m4 (from the future) reaches P2 before P1's
		// Rollback request: the receive is held, the request rolls P2
		// back (undoing m3's receipt), and re-execution meets m4 again.
		// Case 2: m5, sent by P0 before the recovery with sn 0 < r, is
		// still valid for P2 and is logged. P0 takes a recovery
		// checkpoint. Case 3: same applied set.
		name: "receipt-cases",
		build: func() *tracetest.Builder {
			return tracetest.NewBuilder("P0", "P1", "P2").
				Params(trace.Params{ControlDelay: sec(2)}).
				Checkpoint(0.1, "P1").
				Send(0.2, "P1", "P2", "m3").
				Send(0.3, "P0", "P2", "m5").
				Recv(0.5, "P2", "m3").
				Fail(1.0, "P1").
				Send(1.5, "P1", "P2", "m4").
				Recv(1.6, "P2", "m4").
				Recv(6.0, "P2", "m5")
		},
		must: []string{`"p":"P2","kind":"hold","msg":"m4","until":"rollback(P1,1)"`, `"p":"P2","kind":"rollback","pos":0,"restore":1,"undone":1,"cause":"request"`,
			`"p":"P0","kind":"checkpoint","ckpt":1,"type":"recovery","pos":1,"sn":1`, `"p":"P2","kind":"log","msg":"m5","op":2,"copy":1`, `"p":"P2","kind":"recv","msg":"m5"`,
			`"p":"P2","kind":"unhold","msg":"m4"`},
	},
	{
		// Two concurrent failures with different recovery lines (P0 r=1,
		// P1 r=3).
		name: "concurrent",
		build: func() *tracetest.Builder {
			return tracetest.NewBuilder("P0", "P1", "P2").
				Checkpoint(0.05, "P0").
				Checkpoint(0.05, "P1").
				Checkpoint(0.06, "P1").
				Checkpoint(0.07, "P1").
				Send(0.1, "P0", "P2", "a").
				Send(0.2, "P1", "P2", "b").
				Recv(0.3, "P2", "a").
				Recv(0.4, "P2", "b").
				Send(0.5, "P2", "P0", "c").
				Send(0.55, "P2", "P1", "d").
				Fail(0.58, "P0").
				Recv(0.6, "P0", "c").
				Recv(0.65, "P1", "d").
				Fail(1.1, "P1")
		},
		must: []string{`"body":{"origin":"P0","count":1,"r":1}`, `"body":{"origin":"P1","count":1,"r":3}`},
	},
	{
		// P1 fails twice (restart_delay 0.5) while P0's Rollback request
		// is in flight; the request arrives while P1 is down (2.2 < 2.6) and is
		// applied at its second restart.
		name: "fail-twice",
		build: func() *tracetest.Builder {
			return tracetest.NewBuilder("P0", "P1", "P2").
				Params(trace.Params{RestartDelay: sec(0.5), ControlDelay: sec(0.5)}).
				Checkpoint(0.05, "P0").
				Checkpoint(0.05, "P1").
				Send(0.1, "P0", "P1", "a").
				Recv(0.2, "P1", "a").
				Send(0.3, "P1", "P2", "b").
				Recv(0.4, "P2", "b").
				Send(0.45, "P2", "P0", "c").
				Recv(0.5, "P0", "c").
				Fail(1.0, "P1").
				Fail(1.2, "P0").
				FailDown(1.6, "P1", 1.0)
		},
		must: []string{`"p":"P1","kind":"restart","pos":0,"restore":1`},
	},
	{
		// P1 fails, re-executes op 0, takes a basic checkpoint, fails
		// again before its logged m1 is replayed: the entry survives and
		// the second restart still replays it.
		name: "refail-before-replay",
		build: func() *tracetest.Builder {
			return tracetest.NewBuilder("P0", "P1").
				Checkpoint(0.1, "P1").
				Checkpoint(0.2, "P1").
				Internal(0.3, "P1").
				Send(0.35, "P0", "P1", "m1").
				Recv(0.6, "P1", "m1").
				Fail(1.0, "P1").
				Checkpoint(2.35, "P1").
				Fail(2.4, "P1")
		},
		must: []string{`"p":"P1","kind":"checkpoint","ckpt":3,"type":"basic","pos":1,"sn":3`, `"p":"P1","kind":"restart","pos":1,"restore":3`,
			`"p":"P1","kind":"recv","msg":"m1","from":"P0","op":1,"copy":1,"via":"log"`},
	},
	{
		// Ties at t=2: P0's restart first, then the arrival of m1 (sent
		// first) and m2, then trace-indexed items by index: P0's tick
		// (index 6) before P2's send of m3 (index 7) whose zero-delay
		// arrival is handled before P1's receive of m3 (index 8).
		name: "ties",
		build: func() *tracetest.Builder {
			return tracetest.NewBuilder("P0", "P1", "P2").
				Send(0.5, "P1", "P0", "m1").
				Fail(1.0, "P0").
				Send(1.5, "P2", "P0", "m2").
				Recv(2.0, "P0", "m2").
				Recv(2.0, "P0", "m1").
				Internal(2.0, "P1").
				Checkpoint(2.0, "P0").
				Send(2.0, "P2", "P1", "m3").
				Recv(2.0, "P1", "m3")
		},
		must: []string{`"seq":3,"t":2,"p":"P0","kind":"restart"`, `"seq":6,"t":2,"p":"P1","kind":"internal","op":1`, `"seq":7,"t":2,"p":"P0","kind":"checkpoint","ckpt":1,"type":"basic","pos":0,"sn":1`,
			`"seq":8,"t":2,"p":"P2","kind":"send","msg":"m3"`, `"seq":9,"t":2,"p":"P1","kind":"recv","msg":"m3"`},
	},
}

func TestGolden(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, err := c.build().Build()
			if err != nil {
				t.Fatal(err)
			}
			tr.Name = c.name
			run := mustRun(t, tr, "")
			golden.Check(t, c.name+".golden", []byte(replaytest.Dump(run)))
			for _, m := range c.must {
				if len(find(run, m)) == 0 {
					t.Errorf("run lacks %q", m)
				}
			}
			h := newHistory(run)
			if u := h.undoneReceipts(); len(u) != 0 {
				t.Errorf("live receipts of undone sends: %v", u)
			}
			if err := h.snLines(); err != nil {
				t.Error(err)
			}
			for i := range run.Events {
				if e := &run.Events[i]; e.Kind == trace.End && e.State != trace.StateDone {
					t.Errorf("not done: %s", replaytest.Lines(run)[i])
				}
			}
		})
	}
}

// textbookTrace has two concurrent failures that both end incarnation 0:
// P2 adopts P0's inc 1 (recovery checkpoint, no rollback) and then ignores
// P1's Rollback, which also says inc 1, keeping m1 whose send P1's failure
// undid.
func textbookTrace(t *testing.T) *trace.Trace {
	tr, err := tracetest.NewBuilder("P0", "P1", "P2").
		Checkpoint(0.05, "P0").
		Checkpoint(0.06, "P0").
		Checkpoint(0.07, "P0").
		Checkpoint(0.1, "P1").
		Send(0.2, "P1", "P2", "m1").
		Recv(0.3, "P2", "m1").
		Fail(0.9, "P0").
		Fail(1.0, "P1").
		Build()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestTextbookKeepsOrphan(t *testing.T) {
	tr := textbookTrace(t)
	tb := mustRun(t, tr, "textbook")
	if tb.Algorithm != "ms-textbook" {
		t.Errorf("algorithm %q", tb.Algorithm)
	}
	golden.Check(t, "textbook-orphan.golden", []byte(replaytest.Dump(tb)))
	if u := newHistory(tb).undoneReceipts(); len(u) == 0 {
		t.Error("textbook variant: expected a live receipt of an undone send (m1), found none")
	} else if e := tb.Events[u[0]]; tb.Msgs[e.Msg] != "m1" {
		t.Errorf("textbook orphan is %s, want m1", tb.Msgs[e.Msg])
	}
	def := mustRun(t, tr, "")
	golden.Check(t, "default-no-orphan.golden", []byte(replaytest.Dump(def)))
	if u := newHistory(def).undoneReceipts(); len(u) != 0 {
		t.Errorf("default variant keeps orphans: %v", u)
	}
}

func randomTraces() []*trace.Trace {
	var out []*trace.Trace
	for seed := uint64(1); seed <= 40; seed++ {
		out = append(out, gentest.Seeded(seed, 2+int(seed%5), 30+int(seed)*5, 0))
	}
	return out
}

func exampleTraces(t *testing.T) []*trace.Trace {
	files, _ := filepath.Glob("../../testdata/traces/*")
	var out []*trace.Trace
	for _, f := range files {
		tr, err := codec.ReadTraceFile(f)
		if err != nil {
			continue // the examples directory also holds invalid inputs
		}
		out = append(out, tr)
	}
	return out
}

// TestFailureFreeIdentity: without fail events the run's app events are
// the trace's, same times, same order per process; and S_n lines hold.
func TestFailureFreeIdentity(t *testing.T) {
	all := append(exampleTraces(t), randomTraces()...)
	for _, variant := range []string{"", "textbook"} {
		for _, tr := range all {
			hasFail := false
			for i := range tr.Events {
				if tr.Events[i].Kind == trace.Fail {
					hasFail = true
				}
			}
			if hasFail {
				continue
			}
			run := mustRun(t, tr, variant)
			want, got := replaytest.AppEvents(tr, run)
			if !reflect.DeepEqual(want, got) {
				t.Errorf("%s (%q): app events differ from the trace", tr.Name, variant)
			}
			if err := newHistory(run).snLines(); err != nil {
				t.Errorf("%s: %v", tr.Name, err)
			}
		}
	}
}

// TestRandomFailures replays random traces with overlapping failures: runs
// are deterministic, no live receipt of an undone send remains, every
// process finishes, and the S_n lines are consistent.
func TestRandomFailures(t *testing.T) {
	n := 150
	if testing.Short() {
		n = 30
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		tr := gentest.Seeded(seed, 2+int(seed%4), 20+int(seed%50), 1+int(seed%4))
		run := mustRun(t, tr, "")
		again := mustRun(t, tr, "")
		var a, b bytes.Buffer
		if err := codec.WriteRun(&a, run, codec.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := codec.WriteRun(&b, again, codec.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("seed %d: replay is not deterministic", seed)
		}
		h := newHistory(run)
		if u := h.undoneReceipts(); len(u) != 0 {
			t.Fatalf("seed %d: live receipts of undone sends %v\n%s", seed, u, replaytest.Dump(run))
		}
		if err := h.snLines(); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, replaytest.Dump(run))
		}
		for i := range run.Events {
			if e := &run.Events[i]; e.Kind == trace.End && e.State != trace.StateDone {
				t.Fatalf("seed %d: %s\n%s", seed, replaytest.Lines(run)[i], replaytest.Dump(run))
			}
		}
	}
}
