package consistency

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/codec"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// TestOverdueOpLeftOut: a send or internal op that was ready before a
// fail or rollback of its process, and is left out of the run with the
// restore's undone lowered by one, fails equivalence: the op executes
// when ready (SPEC §3). A red team's forgery (161 of 186 such deletions
// passed).
func TestOverdueOpLeftOut(t *testing.T) {
	for _, tc := range []struct {
		alg  string
		same bool // the op shares its fail's instant (the trace lists it first)
	}{{"ms", false}, {"pk", false}, {"ms", true}, {"pk", true}} {
		alg, found := tc.alg, 0
		for seed := uint64(1); seed <= 200 && found < 3; seed++ {
			c := gen.DefaultConfig()
			c.Procs, c.Events, c.Seed, c.Failures = 4, 120, seed, 2
			tr, err := gen.Trace(c)
			if err != nil {
				t.Fatal(err)
			}
			run := replayOf(t, alg, tr)
			if i, ok := overdueCandidate(run, tc.same); ok {
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
				want := fmt.Sprintf("op %d (internal) is due", run.Events[i].Op)
				if !failsWith(Check(&forged, tr), report.Equivalence, want) {
					t.Errorf("%s seed %d: the internal op at seq %d left out passes, or its witness does not say %q", alg, seed, i, want)
				}
			}
		}
		if found == 0 {
			t.Fatalf("%s (same instant %v): no internal op ran before a restore of its process", alg, tc.same)
		}
	}
}

// overdueCandidate finds an internal op that is the last event of its
// process before a rollback or fail of it, with time left between (so
// the op was ready strictly before), or, same, before a fail at its own
// instant (SPEC §3's order at equal times put the op first).
func overdueCandidate(run *trace.Run, same bool) (int, bool) {
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
			if same && n.Kind == trace.Fail && n.T == e.T || !same && (n.Kind == trace.Rollback || n.Kind == trace.Fail) && n.T > e.T {
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

// TestHoldLeftOutBeforeRollback: an MS hold and its unhold deleted,
// where the Rollback request that ends the hold rolls the process back,
// fail equivalence: the receive was ready and a copy had arrived, so it
// examined it then and held (SPEC §3, §4.2 case 1), before the rollback
// (a red team's forgery: 8 of 10 such deletions passed).
func TestHoldLeftOutBeforeRollback(t *testing.T) {
	found := 0
	for seed := uint64(41); seed <= 80 && found < 3; seed++ {
		c := gen.DefaultConfig()
		c.Procs, c.Events, c.Seed, c.Failures, c.Concurrent = 4, 120, seed, 2, true
		const sec = trace.Time(1e9)
		c.Params.ControlDelay, c.Delay = 5*sec/2, gen.Dist{Kind: gen.Exp, A: 2 * sec / 5}
		c.Ticks, c.FlushEvery, c.InTransit = []trace.Time{3 * sec, 4 * sec, 5 * sec}, 2*sec, 2
		tr, err := gen.Trace(c)
		if err != nil {
			t.Fatal(err)
		}
		run := replayOf(t, "ms", tr)
		for i := range run.Events {
			h := &run.Events[i]
			if h.Kind != trace.Hold {
				continue
			}
			// Its unhold, then the process's next event a rollback.
			u, next := -1, -1
			for j := i + 1; j < len(run.Events) && next < 0; j++ {
				if e := &run.Events[j]; e.P == h.P && e.Kind == trace.Unhold {
					u = j
				} else if e.P == h.P && u >= 0 {
					next = j
				}
			}
			if u < 0 || next < 0 || run.Events[next].Kind != trace.Rollback || run.Events[next].T <= h.T {
				continue
			}
			found++
			forged := *run
			forged.Events = slices.Delete(slices.Delete(slices.Clone(run.Events), u, u+1), i, i+1)
			for j := range forged.Events {
				e := &forged.Events[j]
				e.Seq = int32(j)
				switch { // the seqs of fail events after the two deleted
				case e.Failure > int32(u):
					e.Failure -= 2
				case e.Failure > int32(i):
					e.Failure--
				}
			}
			if !failsWith(Check(&forged, tr), report.Equivalence, "has not run by") {
				t.Errorf("seed %d: the hold at seq %d and its unhold at seq %d left out pass", seed, i, u)
			}
		}
	}
	if found == 0 {
		t.Fatal("no MS hold ended by a rollback in the runs")
	}
}

// TestPKHeldThroughRollback: a PK process restarted and held until its
// token returns stays held through a rollback meanwhile (another
// failure's token), so a receive whose copy arrives then is not due: the
// run of this trace is valid. (The first overdue rule let the rollback
// end the hold and failed it; explore's shrunk witness.)
func TestPKHeldThroughRollback(t *testing.T) {
	tr, err := codec.ReadTrace("held.json", strings.NewReader(`{"format":"ckpt/trace@1","processes":["P0","P1","P2","P3"],"params":{"restart_delay":1,"control_delay":2.5,"default_delay":1},"events":[
{"t":1.781,"p":"P0","kind":"internal"},
{"t":6.692,"p":"P2","kind":"send","to":"P0","msg":"m15"},
{"t":6.786,"p":"P0","kind":"recv","msg":"m15"},
{"t":7.128,"p":"P0","kind":"send","to":"P3","msg":"m17"},
{"t":7.128,"p":"P0","kind":"fail"},
{"t":7.182,"p":"P3","kind":"recv","msg":"m17"},
{"t":13.5,"p":"P3","kind":"flush"},
{"t":13.597,"p":"P3","kind":"fail","down":1.988},
{"t":24,"p":"P3","kind":"fail","down":1}
]}`))
	if err != nil {
		t.Fatal(err)
	}
	if r := Check(replayOf(t, "pk", tr), tr); !r.Valid {
		t.Fatalf("invalid: %+v", r.Properties)
	}
}
