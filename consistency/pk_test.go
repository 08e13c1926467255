package consistency

import (
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// pkOpts alter pkRun to build one violation at a time.
type pkOpts struct {
	overRollback bool // P1 undoes its internal op too
	noRollback   bool // P1 keeps its receipt of the orphan m1
	flushed      bool // m0's receipt is on P0's stable log, yet the restart stops before it
	ckptLost     bool // P0 had checkpoint 1 after both ops, yet restarts from 0
}

// pkRun is a clean PK run: P0 receives m0 (unlogged) and sends m1 to P1,
// then crashes and loses both ops; the token makes P1 undo exactly its
// receipt of m1 and P2 resend m0, and the re-execution redoes the rest.
func pkRun(o pkOpts) *trace.Run {
	b := newRun("pk", "P0", "P1", "P2")
	b.send("P2", "P0", "m0", 0, 1, pkPB([2]int32{0, 0}, [2]int32{0, 0}, [2]int32{0, 1}))
	b.recv("P0", "P2", "m0", 0, 1, trace.ViaNet)
	b.send("P0", "P1", "m1", 1, 1, pkPB([2]int32{0, 2}, [2]int32{0, 0}, [2]int32{0, 1}))
	b.internal("P1", 0)
	b.recv("P1", "P0", "m1", 1, 1, trace.ViaNet)
	// The optional events come at t=0.5, so that the fail stays at its
	// trace time, 0.6.
	if o.flushed {
		b.run.Events[b.log("P0", "m0", 0, 1)].T = trace.Second / 2
	}
	if o.ckptLost {
		b.run.Events[b.pkCkpt("P0", 1, 2, [2]int32{0, 2}, [2]int32{0, 0}, [2]int32{0, 1})].T = trace.Second / 2
	}
	f := b.fail("P0")
	b.run.Events[f].T = 6 * trace.Second / 10
	b.restart("P0", 0, 0, 2, f)
	tok := token(0, 0, 0)
	tok.Received = []trace.Identity{} // P0 restarts with no live receipt
	b.control("P0", "P1", trace.ControlToken, f, tok)
	switch {
	case o.overRollback:
		b.rollback("P1", 0, 0, 2, f, trace.CauseToken)
		b.internal("P1", 0)
	case o.noRollback:
	default:
		b.rollback("P1", 0, 1, 1, f, trace.CauseToken)
	}
	b.control("P1", "P2", trace.ControlToken, f, tok)
	b.run.Events[b.resend("P2", "P0", "m0", 0, 2, 1, pkPB([2]int32{0, 0}, [2]int32{0, 0}, [2]int32{0, 1}))].Failure = f
	b.control("P2", "P0", trace.ControlToken, f, tok)
	b.add(trace.Resume, "P0", nil)
	b.recv("P0", "P2", "m0", 0, 2, trace.ViaNet)
	b.send("P0", "P1", "m1", 1, 2, pkPB([2]int32{1, 2}, [2]int32{0, 0}, [2]int32{0, 1}))
	if o.noRollback {
		b.discard("P1", "m1", 2, trace.ReasonDuplicate, trace.None)
	} else {
		b.recv("P1", "P0", "m1", 1, 2, trace.ViaNet)
	}
	b.done("P0", "P1", "P2")
	return b.run
}

func pkSource(t *testing.T, o ...pkOpts) *trace.Trace {
	t.Helper()
	tb := tracetest.NewBuilder("P0", "P1", "P2").
		Send(0.1, "P2", "P0", "m0").
		Recv(0.2, "P0", "m0").
		Send(0.3, "P0", "P1", "m1").
		Internal(0.35, "P1").
		Recv(0.5, "P1", "m1")
	if len(o) > 0 && o[0].ckptLost {
		tb.Checkpoint(0.5, "P0")
	}
	tr, err := tb.Fail(0.6, "P0").Build()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// The hand-written run records no params: equivalence is unknown, as in
// TestMSCleanFailure.
func TestPKClean(t *testing.T) {
	r := measured(pkRun(pkOpts{}), pkSource(t))
	expect(t, r, map[string]report.Status{
		report.OrphanFree: pass, report.NoLostMessages: pass, report.NoDuplicates: pass,
		report.LogReplayRules: pass, report.DominoFree: pass, report.ZCycleFree: na,
		report.SnLines: na, report.MinimalRollback: pass, report.Equivalence: report.Unknown,
	})
	rec := r.Recoveries[0]
	if rec.Announcement == nil || rec.Announcement.Inc != 0 || rec.Announcement.K != 0 || rec.RecLine != nil {
		t.Errorf("announcement = %+v, rec_line = %v", rec.Announcement, rec.RecLine)
	}
	if l := rec.Line[1]; l.Undone != 1 || l.Pos != 1 || l.Cause != "token" {
		t.Errorf("P1 line = %+v", l)
	}
	if l := rec.Line[2]; l.Resent != 1 || l.Restore != nil {
		t.Errorf("P2 line = %+v", l)
	}
	if r.Stats.Resent != 1 || r.Stats.TokenHops != 3 {
		t.Errorf("stats = %+v", r.Stats)
	}
}

func TestPKViolations(t *testing.T) {
	for _, tc := range []struct {
		name    string
		o       pkOpts
		want    map[string]report.Status
		witness string
	}{
		{"rollback past the orphan suffix", pkOpts{overRollback: true},
			map[string]report.Status{report.MinimalRollback: fail, report.DominoFree: fail}, "does not depend on any event P0 lost"},
		// (Without the rollback P1 is done when it discards copy 2 of m1,
		// at no receive of m1: log-replay-rules fails too.)
		{"orphan kept", pkOpts{noRollback: true},
			map[string]report.Status{report.OrphanFree: fail, report.LogReplayRules: fail}, "m1 is an orphan of failure seq 5"},
		{"replay stops early", pkOpts{flushed: true},
			map[string]report.Status{report.LogReplayRules: fail}, "the restart claims pos 0"},
		{"restart from an older checkpoint", pkOpts{ckptLost: true},
			map[string]report.Status{report.DominoFree: fail, report.LogReplayRules: fail}, "latest non-orphan checkpoint 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Check(pkRun(tc.o), pkSource(t, tc.o))
			expect(t, r, tc.want)
			if !strings.Contains(dump(r), tc.witness) {
				t.Errorf("no witness %q in\n%s", tc.witness, dump(r))
			}
		})
	}
}
