package ms_test

import (
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/replay/replaytest"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen/gentest"
)

// TestMutantsAreBroken: each test-only mutant must produce, on some random
// trace, a run that the oracles of history_test.go reject, or it would be
// useless to the checker's tests.
func TestMutantsAreBroken(t *testing.T) {
	for _, v := range []string{"no-forced", "no-log"} {
		caught := false
		for seed := uint64(1); seed <= 200 && !caught; seed++ {
			tr := gentest.Seeded(seed, 2+int(seed%4), 20+int(seed%50), 1+int(seed%4))
			run := mustRun(t, tr, v)
			h := newHistory(run)
			if len(h.undoneReceipts()) > 0 || h.snLines() != nil {
				caught = true
			}
			for i := range run.Events {
				if e := &run.Events[i]; e.Kind == trace.End && e.State != trace.StateDone {
					caught = true
				}
			}
		}
		if !caught {
			t.Errorf("mutant %q passes every oracle on 200 random traces", v)
		}
	}
}

// TestReplayAllReplaysStale: P1 logs m (sn 2 < 5); P0's failure (r = 2)
// undoes m's send. The default drops the entry at P1's rollback and takes
// the re-sent copy; replay-all replays the undone copy from the log.
func TestReplayAllReplaysStale(t *testing.T) {
	b := tracetest.NewBuilder("P0", "P1")
	for i := 1; i <= 5; i++ {
		b.Checkpoint(0.01*float64(i), "P1")
	}
	tr, err := b.Checkpoint(0.06, "P0").Checkpoint(0.07, "P0").
		Send(0.1, "P0", "P1", "m").
		Recv(0.2, "P1", "m").
		Fail(0.5, "P0").
		Build()
	if err != nil {
		t.Fatal(err)
	}
	def := mustRun(t, tr, "")
	if u := newHistory(def).undoneReceipts(); len(u) != 0 {
		t.Errorf("default keeps an orphan: %v\n%s", u, replaytest.Dump(def))
	}
	if len(find(def, `"p":"P1","kind":"log","msg":"m"`)) != 1 || len(find(def, `"p":"P1","kind":"recv","msg":"m"`, `"copy":2`)) != 1 {
		t.Errorf("default: want m logged, then copy 2 received:\n%s", replaytest.Dump(def))
	}
	bad := mustRun(t, tr, "replay-all")
	if u := newHistory(bad).undoneReceipts(); len(u) == 0 {
		t.Errorf("replay-all: expected the undone copy of m replayed:\n%s", replaytest.Dump(bad))
	}
}
