package fdas

import (
	"testing"

	"github.com/ckpt-dev/ckpt/consistency"
	_ "github.com/ckpt-dev/ckpt/internal/golden" // -update, as in every test binary
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// The tests of FDAS are with those of the other placement protocols, in
// algorithms/protocoltest; the one here changes the machine's state.

// TestIntervalZeroIsADependency: with D[self] starting at 0, the issue's
// other reading, "interval 0 of k" and "nothing of k" are both 0, a
// first dependency on a process's initial interval forces nothing, and
// Z-paths from initial checkpoints go untracked: the checker finds RDT
// broken on some workload where FDAS keeps it.
func TestIntervalZeroIsADependency(t *testing.T) {
	for seed := uint64(1); seed <= 100; seed++ {
		cfg := gen.DefaultConfig()
		cfg.Procs, cfg.Events, cfg.Seed, cfg.FlushEvery, cfg.Ticks = 2+int(seed%4), 60+int(seed%5)*20, seed, 0, nil
		for _, s := range [][]float64{{2, 3.5, 6}, {1.5, 4}, {3, 2.5, 5, 7}}[seed%3] {
			tick, _ := trace.FromSeconds(s)
			cfg.Ticks = append(cfg.Ticks, tick)
		}
		tr, err := gen.Trace(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if breaksRDT(t, tr, false) {
			t.Fatalf("seed %d: FDAS itself breaks RDT", seed)
		}
		if breaksRDT(t, tr, true) {
			t.Logf("seed %d: mutant caught", seed)
			return
		}
	}
	t.Fatal("the mutant keeps RDT on 100 workloads")
}

// breaksRDT replays tr through FDAS, with D[self] starting at 0 if
// zeroSelf, and reports whether the checker finds RDT failing.
func breaksRDT(t *testing.T, tr *trace.Trace, zeroSelf bool) bool {
	t.Helper()
	f := New(tr)
	if zeroSelf {
		for p := range f.procs {
			f.procs[p].d[p] = 0
		}
	}
	run, err := replay.Run(tr, f, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range consistency.Check(run, tr).Properties {
		if p.Name == report.RDT {
			return p.Status == report.Fail
		}
	}
	t.Fatal("the checker judged no RDT")
	return false
}
