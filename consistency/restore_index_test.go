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
		b := history.NewBuilder(run, nil, history.AlgOf(run), len(run.Events))
		for i := range run.Events {
			b.Add(&run.Events[i])
		}
		// The id's checkpoint once the run is over, as the builder finds it.
		m := b.Model()
		want, wok := make([]history.Ckpt, len(m.Restores)), make([]bool, len(m.Restores))
		for i, rs := range m.Restores {
			want[i], wok[i] = b.CkptByID(m.Event(rs.Seq).P, m.Event(rs.Seq).Restore)
		}
		b.Finish()
		for i := range m.Restores {
			rs := &m.Restores[i]
			got, ok := m.RestoredCkpt(rs)
			if ok != wok[i] || got != want[i] {
				t.Errorf("%s: restore at seq %d: resolved %+v (%v), its id names %+v (%v)", name, rs.Seq, got, ok, want[i], wok[i])
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

	b := history.NewBuilder(run, nil, history.MS, len(run.Events))
	for i := range run.Events {
		b.Add(&run.Events[i])
	}
	if ck, _ := b.CkptByID(0, 1); ck.Seq != reused {
		t.Errorf("CkptByID(0, 1) is %+v, want the latest with id 1, at seq %d", ck, reused)
	}
	m := b.Finish()
	if ck, ok := m.RestoredCkpt(m.RestoreOf(restart)); !ok || ck.Seq != 1 || ck.Sn != 1 {
		t.Errorf("the restart at seq %d restored %+v (%v), want the checkpoint at seq 1", restart, ck, ok)
	}
	r := Check(run, nil)
	expect(t, r, map[string]report.Status{report.Equivalence: fail, report.LogReplayRules: pass})
	if out := dump(r); !strings.Contains(out, "P0 reuses checkpoint id 1 at seq 13") {
		t.Errorf("no reuse witness:\n%s", out)
	}
}
