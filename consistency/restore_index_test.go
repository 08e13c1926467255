package consistency

import (
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/consistency/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// TestRestoreIndexMatchesID: with checkpoint ids unique, the checkpoint
// the builder resolved for each restore (history.Restore.Restored) is
// the one its id names, for MS and PK runs of the bundled traces and
// forged restores.
func TestRestoreIndexMatchesID(t *testing.T) {
	runs := map[string]*trace.Run{
		"ms":              msFailureRun(msOpts{}),
		"ms-restart-init": msFailureRun(msOpts{restartInit: true}),
		"ms-rollback-0":   msFailureRun(msOpts{rollbackInit: true}),
	}
	for _, name := range []string{"orphan", "domino", "textbook-orphan"} {
		for _, alg := range []string{"ms", "pk"} {
			runs[name+"."+alg] = replayOf(t, alg, bundled(name)(t))
		}
	}
	n := 0
	for name, run := range runs {
		m := history.Build(run, nil, history.AlgOf(run))
		for i := range m.Restores {
			rs := &m.Restores[i]
			e := m.Event(rs.Seq)
			want, wok := m.Procs[e.P].Checkpoint(e.Restore)
			got, ok := m.RestoredCkpt(rs)
			if ok != wok || got != want {
				t.Errorf("%s: restore at seq %d: resolved %+v (%v), its id names %+v (%v)", name, rs.Seq, got, ok, want, wok)
			}
			n++
		}
	}
	if n < 10 {
		t.Fatalf("only %d restores checked", n)
	}
}

// TestRestoreIndexReusedID: a restore's checkpoint is resolved when it
// happens. P0 restores checkpoint 1 (sn 1) and later takes another
// checkpoint with id 1 (sn 2): equivalence fails for the reuse, and the
// MS rules judge the restore by the checkpoint it restored, not by the
// later one (which made P0's next send seem to lack sn 2).
func TestRestoreIndexReusedID(t *testing.T) {
	b := newRun("ms", "P0", "P1")
	b.internal("P1", 0)
	b.ckpt("P0", 1, trace.CkptBasic, 0, 1, trace.None)
	b.send("P0", "P1", "m1", 0, 1, msPB(1))
	b.ckpt("P1", 1, trace.CkptForced, 1, 1, trace.None)
	b.recv("P1", "P0", "m1", 1, 1, trace.ViaNet)
	b.internal("P0", 1)
	f := b.fail("P0")
	restart := b.restart("P0", 1, 0, 2, f)
	b.control("P0", "P1", trace.ControlRollback, f, nil)
	b.rollback("P1", 1, 1, 1, f, trace.CauseRequest)
	b.send("P0", "P1", "m1", 0, 2, msPB(1, trace.FEntry{P: 0, Count: 1}))
	b.internal("P0", 1)
	reused := b.ckpt("P0", 1, trace.CkptBasic, 2, 2, trace.None)
	b.recv("P1", "P0", "m1", 1, 2, trace.ViaNet)
	b.done("P0", "P1")

	m := history.Build(b.run, nil, history.MS)
	if ck, ok := m.RestoredCkpt(m.RestoreOf(restart)); !ok || ck.Seq != 1 || ck.Sn != 1 {
		t.Errorf("the restart at seq %d restored %+v (%v), want the checkpoint at seq 1", restart, ck, ok)
	}
	if ck, _ := m.Procs[0].Checkpoint(1); ck.Seq != reused {
		t.Errorf("Checkpoint(1) is %+v, want the latest with id 1, at seq %d", ck, reused)
	}
	r := Check(b.run, nil)
	expect(t, r, map[string]report.Status{report.Equivalence: fail, report.LogReplayRules: pass})
	if out := dump(r); !strings.Contains(out, "P0 reuses checkpoint id 1 at seq 13") {
		t.Errorf("no reuse witness:\n%s", out)
	}
}
