package consistency

import (
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/report"
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
	run := msFailureRun(msOpts{reuseID: true})
	restart, reused := int32(-1), int32(-1)
	for i := range run.Events {
		switch e := &run.Events[i]; {
		case e.Kind == trace.Restart:
			restart = int32(i)
		case e.Kind == trace.Checkpoint && e.P == 0:
			reused = int32(i) // the last of P0's
		}
	}

	m := history.Build(run, nil, history.MS)
	if ck, ok := m.RestoredCkpt(m.RestoreOf(restart)); !ok || ck.Seq != 1 || ck.Sn != 1 {
		t.Errorf("the restart at seq %d restored %+v (%v), want the checkpoint at seq 1", restart, ck, ok)
	}
	if ck, _ := m.Procs[0].Checkpoint(1); ck.Seq != reused {
		t.Errorf("Checkpoint(1) is %+v, want the latest with id 1, at seq %d", ck, reused)
	}
	r := Check(run, nil)
	expect(t, r, map[string]report.Status{report.Equivalence: fail, report.LogReplayRules: pass})
	if out := dump(r); !strings.Contains(out, "P0 reuses checkpoint id 1 at seq 13") {
		t.Errorf("no reuse witness:\n%s", out)
	}
}
