package history

import (
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// agreedByWalk counts the ops at the start of p's final live history
// that are its program's, by walking it: what Proc.Agreed keeps as ops
// come and go.
func agreedByWalk(m *Model, p int32) int32 {
	live, n := m.Procs[p].Live, m.ProgLen(p)
	k := 0
	for ; k < len(live) && k < n && live[k] != None; k++ {
		e, op := m.Event(live[k]), m.ProgOp(p, int32(k))
		if e.Kind != op.Kind || (e.Kind != trace.Internal && e.Msg != op.Msg) {
			break
		}
	}
	return int32(k)
}

// TestAgreedIsTheWalk: Proc.Agreed equals the walk on replays with
// failures, and on the same runs with an op re-executed after a restore
// forged into a send of another message (a restore must lower Agreed
// to the restored position, or the forged op, below the old count,
// would pass as the program's).
func TestAgreedIsTheWalk(t *testing.T) {
	forged := 0
	for seed := uint64(1); seed <= 12; seed++ {
		for _, name := range []string{"ms", "pk"} {
			c := gen.DefaultConfig()
			c.Seed, c.Procs, c.Events, c.Failures = seed, 4, 80, 1+int(seed%3)
			run, tr := replayedRun(t, c, name)
			agreesWithWalk(t, run, tr, name)
			for i := range run.Events {
				if e := &run.Events[i]; e.Kind == trace.Send && e.Copy > 1 && !e.Resend && len(run.Msgs) > 1 {
					e.Msg = (e.Msg + 1) % int32(len(run.Msgs))
					forged++
					break
				}
			}
			agreesWithWalk(t, run, tr, name+" forged")
		}
	}
	if forged < 6 {
		t.Errorf("only %d runs re-executed a send after a restore: the forged case went untested", forged)
	}
}

func agreesWithWalk(t *testing.T, run *trace.Run, tr *trace.Trace, what string) {
	t.Helper()
	m := Build(run, tr, AlgOf(run))
	for p := range m.Procs {
		if got, want := m.Procs[p].Agreed, agreedByWalk(m, int32(p)); got != want {
			t.Errorf("%s: P%d Agreed %d, the walk %d", what, p, got, want)
		}
	}
}
