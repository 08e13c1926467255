package pk

import (
	"bytes"
	"flag"
	"fmt"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

var soak = flag.Int("pk.soak", 0, "number of extra random traces for the PK property test")

func genTrace(t testing.TB, cfg gen.Config) *trace.Trace {
	t.Helper()
	tr, err := gen.Trace(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr.Name = fmt.Sprintf("gen-%d.json", cfg.Seed)
	return tr
}

// TestFailureFreeIdentity: without failures the run's app events are the
// trace's, same times, same order per process, and nothing but
// checkpoints and log writes is added.
func TestFailureFreeIdentity(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		cfg := gen.DefaultConfig()
		cfg.Seed, cfg.Events, cfg.Procs = seed, 300, 2+int(seed%5)
		tr := genTrace(t, cfg)
		run := replayPK(t, tr)
		type app struct {
			t    trace.Time
			kind trace.Kind
			msg  int32
		}
		want := make([][]app, len(tr.Processes))
		for _, e := range tr.Events {
			if e.Kind.IsOp() {
				want[e.P] = append(want[e.P], app{e.T, e.Kind, e.Msg})
			}
		}
		got := make([][]app, len(tr.Processes))
		for _, e := range run.Events {
			switch e.Kind {
			case trace.Send, trace.Recv, trace.Internal:
				got[e.P] = append(got[e.P], app{e.T, e.Kind, e.Msg})
			case trace.Checkpoint, trace.Log, trace.End:
			default:
				t.Fatalf("seed %d: unexpected %s in a failure-free run", seed, e.Kind)
			}
		}
		for p := range want {
			if len(got[p]) != len(want[p]) {
				t.Fatalf("seed %d: %s has %d app events, trace %d", seed, tr.Processes[p], len(got[p]), len(want[p]))
			}
			for k := range want[p] {
				if got[p][k] != want[p][k] {
					t.Fatalf("seed %d: %s op %d: run %+v, trace %+v", seed, tr.Processes[p], k, got[p][k], want[p][k])
				}
			}
		}
	}
}

// randomConfig varies processes, failures (also concurrent ones), flush
// rates, delays and messages left in transit with the seed.
func randomConfig(seed uint64) gen.Config {
	cfg := gen.DefaultConfig()
	cfg.Seed = seed * 7919
	cfg.Procs = 2 + int(seed%7)
	cfg.Events = 30 + int(seed%11)*15
	cfg.Failures = 1 + int(seed%9)
	cfg.Concurrent = seed%3 != 0
	cfg.Ticks = []trace.Time{2 * trace.Second, 3 * trace.Second}
	// Rare flushes leave long volatile tails: many orphans.
	cfg.FlushEvery = []trace.Time{0, 1 * trace.Second, 4 * trace.Second}[seed%3]
	cfg.InTransit = int(seed % 3)
	if seed%4 == 0 {
		// Short control delays and long downtimes: tokens reach
		// processes that are down, failures overlap recoveries.
		cfg.Params.ControlDelay = trace.Second / 10
		cfg.Params.RestartDelay = 3 * trace.Second
	}
	return cfg
}

// TestRandomRecoveries replays 200 generated traces with failures, also
// concurrent ones, and checks every run with the causal checker: minimal
// rollback, no orphan at the end, and every program completed exactly.
func TestRandomRecoveries(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 30
	}
	n += *soak
	var restarts, rollbacks, resends, discards int
	defer func() {
		t.Logf("%d traces: %d restarts, %d rollbacks, %d resends, %d discards", n, restarts, rollbacks, resends, discards)
		if restarts == 0 || rollbacks == 0 || resends == 0 {
			t.Error("the random traces exercise no recovery")
		}
	}()
	for seed := uint64(1); seed <= uint64(n); seed++ {
		cfg := randomConfig(seed)
		tr := genTrace(t, cfg)
		run := replayPK(t, tr)
		for _, e := range run.Events {
			switch {
			case e.Kind == trace.Restart:
				restarts++
			case e.Kind == trace.Rollback:
				rollbacks++
			case e.Kind == trace.Discard:
				discards++
			case e.Resend:
				resends++
			}
		}
		if errs := runErrors(tr, run, cfg.InTransit == 0); len(errs) > 0 {
			var b bytes.Buffer
			_ = codec.WriteTrace(&b, tr, codec.WriteOptions{JSONL: true})
			t.Fatalf("seed %d: %v\ntrace:\n%s", seed, errs, b.String())
		}
	}
}

// TestDeterminism: the same trace gives byte-identical runs.
func TestDeterminism(t *testing.T) {
	cfg := gen.DefaultConfig()
	cfg.Seed, cfg.Events, cfg.Failures, cfg.Concurrent, cfg.Procs = 7, 400, 4, true, 5
	tr := genTrace(t, cfg)
	var out [2]bytes.Buffer
	for i := range out {
		run := replayPK(t, tr)
		if err := codec.WriteRun(&out[i], run, codec.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(out[0].Bytes(), out[1].Bytes()) {
		t.Fatal("two replays of the same trace differ")
	}
	if !bytes.Contains(out[0].Bytes(), []byte(`"restart"`)) {
		t.Fatal("the determinism trace has no recovery")
	}
}

// TestCheckerCatches makes sure the causal checker the golden and random
// tests rely on can fail: runs with a rollback removed or cut short, and
// a run whose process skipped its rollback, are caught.
func TestCheckerCatches(t *testing.T) {
	tr, err := classic().Build()
	if err != nil {
		t.Fatal(err)
	}
	good := replayPK(t, tr)
	if errs := runErrors(tr, good, true); len(errs) != 0 {
		t.Fatalf("good run: %v", errs)
	}
	mutate := func(f func(e *trace.RunEvent) bool) *trace.Run {
		r := *good
		r.Events = nil
		for _, e := range good.Events {
			if f(&e) {
				r.Events = append(r.Events, e)
			}
		}
		return &r
	}
	tests := []struct {
		name string
		run  *trace.Run
	}{
		{"rollback dropped", mutate(func(e *trace.RunEvent) bool { return e.Kind != trace.Rollback || e.P != 2 })},
		{"rollback too deep", mutate(func(e *trace.RunEvent) bool {
			if e.Kind == trace.Rollback && e.P == 1 {
				e.Pos = 0
			}
			return true
		})},
		{"rollback too shallow", mutate(func(e *trace.RunEvent) bool {
			if e.Kind == trace.Rollback && e.P == 1 {
				e.Pos = 2
			}
			return true
		})},
	}
	for _, tc := range tests {
		if errs := runErrors(tr, tc.run, true); len(errs) == 0 {
			t.Errorf("%s: not caught", tc.name)
		}
	}
}

func benchTrace(b *testing.B, procs int) *trace.Trace {
	cfg := gen.DefaultConfig()
	cfg.Seed, cfg.Procs, cfg.Events = 1, procs, 1_000_000
	cfg.Failures, cfg.Concurrent = 20, true
	tr, err := gen.Trace(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return tr
}

func benchmarkReplay(b *testing.B, procs int) {
	tr := benchTrace(b, procs)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a, _ := New(Default, tr)
		if _, err := replay.Run(tr, a, replay.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReplay1M16 replays 1,000,000 ops on 16 processes with 20
// failures, some concurrent.
func BenchmarkReplay1M16(b *testing.B) { benchmarkReplay(b, 16) }

// BenchmarkReplay1M64 is the same on 64 processes.
func BenchmarkReplay1M64(b *testing.B) { benchmarkReplay(b, 64) }
