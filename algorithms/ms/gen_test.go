package ms_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/ckpt-dev/ckpt/replay/replaytest"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

func generated(t *testing.T, seed uint64, failures int) *trace.Trace {
	t.Helper()
	cfg := gen.DefaultConfig()
	cfg.Procs = 2 + int(seed%5)
	cfg.Events = 200 + int(seed%7)*50
	cfg.Seed = seed
	cfg.Ticks = []trace.Time{2 * trace.Second, 3 * trace.Second, 5 * trace.Second}[:1+int(seed%2)]
	cfg.Failures = failures
	cfg.Concurrent = failures > 1
	cfg.InTransit = int(seed % 3)
	var buf bytes.Buffer
	if _, err := gen.Write(&buf, cfg, codec.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	tr, err := codec.ReadTrace("gen", &buf)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestGenerated runs traces of the project's generator: failure-free ones
// must reproduce the trace, failing ones must pass the oracles.
func TestGenerated(t *testing.T) {
	n := uint64(30)
	if testing.Short() {
		n = 8
	}
	for seed := uint64(1); seed <= n; seed++ {
		tr := generated(t, seed, 0)
		run := mustRun(t, tr, "")
		if want, got := replaytest.AppEvents(tr, run); !reflect.DeepEqual(want, got) {
			t.Errorf("seed %d: failure-free run differs from the trace", seed)
		}
		for _, v := range []string{"", "textbook"} {
			tr := generated(t, seed, 1+int(seed%6))
			run := mustRun(t, tr, v)
			h := newHistory(run)
			if err := h.snLines(); err != nil {
				t.Errorf("seed %d %q: %v", seed, v, err)
			}
			if v != "" {
				continue // the textbook variant may keep orphans
			}
			if u := h.undoneReceipts(); len(u) != 0 {
				t.Errorf("seed %d: live receipts of undone sends %v", seed, u)
			}
			for i := range run.Events {
				if e := &run.Events[i]; e.Kind == trace.End && e.State != trace.StateDone {
					t.Errorf("seed %d: %s", seed, replaytest.Lines(run)[i])
				}
			}
		}
	}
}

// TestExamples replays every example trace: deterministic output and the
// oracles hold.
func TestExamples(t *testing.T) {
	trs := exampleTraces(t)
	if len(trs) == 0 {
		t.Skip("no example traces")
	}
	for _, tr := range trs {
		var a, b bytes.Buffer
		run := mustRun(t, tr, "")
		if err := codec.WriteRun(&a, run, codec.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := codec.WriteRun(&b, mustRun(t, tr, ""), codec.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: not deterministic", tr.Name)
		}
		h := newHistory(run)
		if u := h.undoneReceipts(); len(u) != 0 {
			t.Errorf("%s: live receipts of undone sends %v", tr.Name, u)
		}
		if err := h.snLines(); err != nil {
			t.Errorf("%s: %v", tr.Name, err)
		}
	}
}
