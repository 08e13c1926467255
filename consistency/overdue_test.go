package consistency

import (
	"slices"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// TestOverdueOpLeftOut: a send or internal op that was ready before a
// fail or rollback of its process, and is left out of the run with the
// restore's undone lowered by one, fails equivalence: the op executes
// when ready (SPEC §3). A red team's forgery (161 of 186 such deletions
// passed).
func TestOverdueOpLeftOut(t *testing.T) {
	for _, alg := range []string{"ms", "pk"} {
		found := 0
		for seed := uint64(1); seed <= 40 && found < 3; seed++ {
			c := gen.DefaultConfig()
			c.Procs, c.Events, c.Seed, c.Failures = 4, 120, seed, 2
			tr, err := gen.Trace(c)
			if err != nil {
				t.Fatal(err)
			}
			run := replayOf(t, alg, tr)
			if i, ok := overdueCandidate(run); ok {
				found++
				forged := *run
				forged.Events = slices.Delete(slices.Clone(run.Events), i, i+1)
				undone := false
				for j := i; j < len(forged.Events); j++ {
					e := &forged.Events[j]
					e.Seq--
					if e.Failure > int32(i) {
						e.Failure--
					}
					// MS undoes the op at the restore; PK's log replay
					// may keep it (undone 0).
					if !undone && e.P == run.Events[i].P && (e.Kind == trace.Rollback || e.Kind == trace.Restart) {
						e.Undone, undone = max(e.Undone-1, 0), true
					}
				}
				if !failsWith(Check(&forged, tr), report.Equivalence, "has not run by") {
					t.Errorf("%s seed %d: the internal op at seq %d left out passes", alg, seed, i)
				}
			}
		}
		if found == 0 {
			t.Fatalf("%s: no internal op ran before a restore of its process", alg)
		}
	}
}

// overdueCandidate finds an internal op that is the last event of its
// process before a rollback or restart of it that undoes it, with time
// left between (so the op was ready strictly before the restore).
func overdueCandidate(run *trace.Run) (int, bool) {
	for i := range run.Events {
		e := &run.Events[i]
		if e.Kind != trace.Internal || e.Resend {
			continue
		}
		for j := i + 1; j < len(run.Events); j++ {
			n := &run.Events[j]
			if n.P != e.P {
				continue
			}
			if (n.Kind == trace.Rollback || n.Kind == trace.Fail) && n.T > e.T {
				return i, true
			}
			break
		}
	}
	return 0, false
}

// failsWith reports whether property name fails in r with a violation
// whose message contains what.
func failsWith(r report.Report, name, what string) bool {
	for _, p := range r.Properties {
		if p.Name == name && p.Status == report.Fail {
			for _, v := range p.Violations {
				if strings.Contains(v.Message, what) {
					return true
				}
			}
		}
	}
	return false
}
