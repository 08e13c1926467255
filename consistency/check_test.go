package consistency

import (
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

const (
	pass    = report.Pass
	fail    = report.Fail
	na      = report.NA
	unknown = report.Unknown
)

// msFailureRun is a clean MS run with one failure: P0 sends m1 after its
// checkpoint 1, P1 takes a forced checkpoint to receive it, P0 crashes and
// restarts from checkpoint 1 (line r = 1), P1 rolls back to its forced
// checkpoint and receives the re-sent copy. mutate may alter it before
// the ends are written, to build a violation.
type msOpts struct {
	noRollback    bool // P1 ignores the Rollback request
	rollbackInit  bool // P1 restores its initial checkpoint, not 1
	discardResent bool // P1 discards the new copy as stale and ends blocked
	restartInit   bool // P0 restores its initial checkpoint, not 1
	lowSn         bool // P1's checkpoint 1 is numbered 0, below the failure's r
	reuseID       bool // P0 takes a second checkpoint with id 1 (sn 2) after its restart
}

func msFailureRun(o msOpts) *trace.Run {
	b := newRun("ms", "P0", "P1")
	b.internal("P1", 0)
	b.ckpt("P0", 1, trace.CkptBasic, 0, 1, trace.None)
	b.send("P0", "P1", "m1", 0, 1, msPB(1))
	sn := int32(1)
	if o.lowSn {
		sn = 0
	}
	b.ckpt("P1", 1, trace.CkptForced, 1, sn, trace.None)
	b.recv("P1", "P0", "m1", 1, 1, trace.ViaNet)
	b.internal("P0", 1)
	f := b.fail("P0")
	if o.restartInit {
		b.restart("P0", 0, 0, 2, f)
	} else {
		b.restart("P0", 1, 0, 2, f)
	}
	b.control("P0", "P1", trace.ControlRollback, f, nil)
	to := int32(1)
	if o.rollbackInit {
		to = 0
	}
	if !o.noRollback {
		pos := int32(1)
		if to == 0 {
			pos = 0
		}
		b.rollback("P1", to, pos, 2-pos, f, trace.CauseRequest)
		if to == 0 {
			b.internal("P1", 0)
			b.ckpt("P1", 2, trace.CkptForced, 1, 1, trace.None)
		}
	}
	b.send("P0", "P1", "m1", 0, 2, msPB(1, trace.FEntry{P: 0, Count: 1}))
	b.internal("P0", 1)
	if o.reuseID {
		b.ckpt("P0", 1, trace.CkptBasic, 2, 2, trace.None)
	}
	switch {
	case o.noRollback:
		b.done("P0", "P1")
		b.add(trace.Unconsumed, "P1", func(e *trace.RunEvent) { e.Msg, e.Copy = b.m("m1"), 2 })
	case o.discardResent:
		b.discard("P1", "m1", 2, trace.ReasonStale, f)
		b.done("P0")
		b.end("P1", trace.StateBlocked, 1, "m1")
	default:
		b.recv("P1", "P0", "m1", 1, 2, trace.ViaNet)
		b.done("P0", "P1")
	}
	return b.run
}

func msSource(t *testing.T, extra bool) *trace.Trace {
	t.Helper()
	tb := tracetest.NewBuilder("P0", "P1").
		Internal(0.1, "P1").
		Checkpoint(0.2, "P0").
		Send(0.3, "P0", "P1", "m1").
		Recv(0.5, "P1", "m1").
		Internal(0.6, "P0")
	if extra {
		tb.Internal(0.7, "P1")
	}
	tr, err := tb.Fail(0.7, "P0").Build()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// The hand-written run records no params, so its times (which are not
// SPEC §3's) leave equivalence unknown (equivalence_times.go).
func TestMSCleanFailure(t *testing.T) {
	r := measured(msFailureRun(msOpts{}), msSource(t, false))
	expect(t, r, map[string]report.Status{
		report.OrphanFree: pass, report.NoLostMessages: pass, report.NoDuplicates: pass,
		report.LogReplayRules: pass, report.DominoFree: pass, report.ZCycleFree: pass,
		report.SnLines: pass, report.MinimalRollback: na, report.Equivalence: report.Unknown,
	})
	if len(r.Recoveries) != 1 {
		t.Fatalf("recoveries = %d, want 1", len(r.Recoveries))
	}
	rec := r.Recoveries[0]
	if rec.RecLine == nil || *rec.RecLine != 1 || rec.Announcement != nil {
		t.Errorf("rec_line = %v, announcement = %v; want 1, nil", rec.RecLine, rec.Announcement)
	}
	if got := rec.Line[1]; got.Restore == nil || *got.Restore != 1 || got.Pos != 1 || got.Undone != 1 || got.Cause != "request" {
		t.Errorf("P1 line entry = %+v", got)
	}
	if got := rec.Line[0]; got.Restore == nil || *got.Restore != 1 || got.Undone != 2 || got.Cause != "restart" {
		t.Errorf("P0 line entry = %+v", got)
	}
	if rec.ControlMessages != 1 {
		t.Errorf("control messages = %d, want 1", rec.ControlMessages)
	}
	s := r.Stats
	if s.Rollbacks != 1 || s.Undone != 3 || s.Checkpoints.Basic != 1 || s.Checkpoints.Forced != 1 || s.Messages != 1 || s.ControlMessages != 1 || s.Checkpoints.Initial != 2 {
		t.Errorf("stats = %+v", s)
	}
}

func TestViolations(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  *trace.Run
		src  bool
		want map[string]report.Status
		// witness must appear in some violation's because.
		witness string
	}{
		{"orphan kept", msFailureRun(msOpts{noRollback: true}), true,
			map[string]report.Status{report.OrphanFree: fail, report.LogReplayRules: fail}, "m1 is an orphan of failure seq 6"},
		{"lost resend", msFailureRun(msOpts{discardResent: true}), true,
			// Issue 14: the discard names failure seq 6, whose recovery
			// the resent copy's sender had applied: no stale copy.
			map[string]report.Status{report.NoLostMessages: fail, report.Equivalence: fail, report.LogReplayRules: fail}, "ended blocked at op 1 on m1"},
		{"rollback too far", msFailureRun(msOpts{rollbackInit: true}), true,
			map[string]report.Status{report.DominoFree: fail}, "earliest checkpoint numbered ≥ 1, checkpoint 1"},
		{"restart not from latest", msFailureRun(msOpts{restartInit: true}), true,
			map[string]report.Status{report.DominoFree: fail, report.LogReplayRules: fail}, "latest checkpoint"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var src *trace.Trace
			if tc.src {
				src = msSource(t, false)
			}
			r := Check(tc.run, src)
			expect(t, r, tc.want)
			if !strings.Contains(dump(r), tc.witness) {
				t.Errorf("no witness %q in\n%s", tc.witness, dump(r))
			}
		})
	}
}

func TestMoreViolations(t *testing.T) {
	for _, tc := range []struct {
		name    string
		build   func() *trace.Run
		want    map[string]report.Status
		witness string
	}{
		{"duplicate delivery", func() *trace.Run {
			b := newRun("acme", "P0", "P1")
			b.send("P0", "P1", "m1", 0, 1, nil)
			b.resend("P0", "P1", "m1", 0, 2, 1, nil)
			b.recv("P1", "P0", "m1", 0, 1, trace.ViaNet)
			b.recv("P1", "P0", "m1", 1, 2, trace.ViaNet)
			b.done("P0", "P1")
			return b.run
		}, map[string]report.Status{report.NoDuplicates: fail}, "both stay live"},
		{"unlogged delivery below sn", func() *trace.Run {
			b := newRun("ms", "P0", "P1")
			b.ckpt("P1", 1, trace.CkptBasic, 0, 1, trace.None)
			b.send("P0", "P1", "m1", 0, 1, msPB(0))
			b.recv("P1", "P0", "m1", 0, 1, trace.ViaNet)
			b.done("P0", "P1")
			return b.run
		}, map[string]report.Status{report.LogReplayRules: fail}, "logging rule demands a log entry"},
		{"logged without need", func() *trace.Run {
			b := newRun("ms", "P0", "P1")
			b.send("P0", "P1", "m1", 0, 1, msPB(0))
			b.log("P1", "m1", 0, 1)
			b.recv("P1", "P0", "m1", 0, 1, trace.ViaNet)
			b.done("P0", "P1")
			return b.run
		}, map[string]report.Status{report.LogReplayRules: fail}, "is not below P1's current checkpoint number 0"},
		{"replay without entry", func() *trace.Run {
			b := newRun("ms", "P0", "P1")
			b.ckpt("P1", 1, trace.CkptBasic, 0, 1, trace.None)
			b.send("P0", "P1", "m1", 0, 1, msPB(0))
			b.log("P1", "m1", 0, 1)
			b.recv("P1", "P0", "m1", 0, 1, trace.ViaNet)
			b.recv("P1", "P0", "m1", 1, 1, trace.ViaLog)
			b.done("P0", "P1")
			return b.run
		}, map[string]report.Status{report.LogReplayRules: fail, report.NoDuplicates: fail}, "there is none"},
		{"skipped replay", func() *trace.Run {
			b := newRun("ms", "P0", "P1")
			b.ckpt("P1", 1, trace.CkptBasic, 0, 1, trace.None)
			b.send("P0", "P1", "m1", 0, 1, msPB(0))
			b.log("P1", "m1", 0, 1)
			b.recv("P1", "P0", "m1", 0, 1, trace.ViaNet)
			f := b.fail("P1")
			b.restart("P1", 1, 0, 1, f)
			b.send("P0", "P1", "m1", 1, 2, msPB(0)) // a second copy, by a forged send
			b.log("P1", "m1", 0, 2)
			b.recv("P1", "P0", "m1", 0, 2, trace.ViaNet)
			b.done("P0", "P1")
			return b.run
		}, map[string]report.Status{report.LogReplayRules: fail}, "the replay rule demands it"},
		{"missing forced checkpoint", msUnforced,
			map[string]report.Status{report.SnLines: fail, report.LogReplayRules: fail}, "every S_n with 1 ≤ n ≤ 1"},
		{"z-cycle", msZCycle,
			map[string]report.Status{report.ZCycleFree: fail, report.SnLines: fail, report.LogReplayRules: fail}, "checkpoint 1 is useless"},
		{"broken op continuity", func() *trace.Run {
			b := newRun("acme", "P0", "P1")
			b.internal("P0", 0)
			b.internal("P0", 2)
			b.done("P0", "P1")
			return b.run
		}, map[string]report.Status{report.Equivalence: fail}, "its next op should be op 1"},
		{"non-deterministic re-execution", func() *trace.Run {
			b := newRun("acme", "P0", "P1")
			b.send("P0", "P1", "m1", 0, 1, nil)
			f := b.fail("P0")
			b.restart("P0", 0, 0, 1, f)
			b.send("P0", "P1", "m2", 0, 1, nil)
			b.recv("P1", "P0", "m2", 0, 1, trace.ViaNet)
			b.done("P0", "P1")
			return b.run
		}, map[string]report.Status{report.Equivalence: fail}, "op 0 of P0 was send earlier"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Check(tc.build(), nil)
			expect(t, r, tc.want)
			if !strings.Contains(dump(r), tc.witness) {
				t.Errorf("no witness %q in\n%s", tc.witness, dump(r))
			}
		})
	}
}

func TestEquivalenceAgainstSource(t *testing.T) {
	r := Check(msFailureRun(msOpts{}), msSource(t, true))
	expect(t, r, map[string]report.Status{report.Equivalence: fail})
	if !strings.Contains(dump(r), "program has 3 ops, its final live history only 2") {
		t.Errorf("witness missing:\n%s", dump(r))
	}
	r = Check(msFailureRun(msOpts{}), nil)
	expect(t, r, map[string]report.Status{report.Equivalence: unknown})
}

// A clean foreign run: judged on what its fields allow, never a false
// positive; what needs algorithm knowledge is unknown, never pass.
func TestForeignClean(t *testing.T) {
	b := newRun("acme-cic", "A", "B", "C")
	b.send("A", "B", "x", 0, 1, nil)
	b.ckpt("B", 1, trace.CkptBasic, 0, trace.None, trace.None)
	b.recv("B", "A", "x", 0, 1, trace.ViaNet)
	b.send("B", "C", "y", 1, 1, nil)
	b.internal("C", 0)
	b.recv("C", "B", "y", 1, 1, trace.ViaNet)
	f := b.fail("C")
	b.restart("C", 0, 0, 2, f)
	b.control("C", "B", trace.ControlRollback, f, nil)
	b.internal("C", 0)
	b.recv("C", "B", "y", 1, 1, trace.ViaLog)
	b.done("A", "B", "C")
	r := Check(b.run, nil)
	expect(t, r, map[string]report.Status{
		report.OrphanFree: pass, report.NoLostMessages: pass, report.NoDuplicates: pass,
		report.LogReplayRules: unknown, report.DominoFree: unknown, report.ZCycleFree: unknown,
		report.SnLines: unknown, report.MinimalRollback: unknown, report.Equivalence: unknown,
	})
	if !r.Valid {
		t.Error("clean foreign run invalid")
	}
}

// A foreign run without op numbers cannot show its live histories: the
// properties built on them are unknown, never pass.
func TestForeignMissingFields(t *testing.T) {
	b := newRun("other", "A", "B")
	b.send("A", "B", "x", trace.None, 1, nil)
	b.recv("B", "A", "x", trace.None, 1, trace.ViaNet)
	b.done("A", "B")
	r := Check(b.run, nil)
	for _, p := range r.Properties {
		if p.Status == report.Pass {
			t.Errorf("%s passes on a run without op numbers", p.Name)
		}
	}
}

// Bad runs never panic: out-of-range indexes, copies never sent,
// restores of unknown checkpoints, absurd positions.
func TestMalformedRunsDoNotPanic(t *testing.T) {
	b := newRun("ms", "P0", "P1")
	b.recv("P1", "P0", "m1", 0, 7, trace.ViaLog)
	b.add(trace.Send, "P0", func(e *trace.RunEvent) { e.Msg, e.Op, e.Copy, e.Resend, e.Of = 99, 0, 1, true, 3 })
	f := b.fail("P0")
	b.restart("P0", 42, 17, 3, f)
	b.rollback("P1", 5, -7, 0, 12345, trace.CauseToken)
	b.log("P1", "m1", 99, 3)
	b.add(trace.Discard, "P1", func(e *trace.RunEvent) { e.Msg, e.Copy = 1000, 1 })
	b.add(trace.End, "P0", func(e *trace.RunEvent) { e.State, e.Msg = trace.StateBlocked, 555 })
	b.run.Events = append(b.run.Events, trace.NewRunEvent(trace.Internal, 0, 9))
	for _, alg := range []string{"ms", "ms-textbook", "pk", "x"} {
		b.run.Algorithm = alg
		r := Check(b.run, nil)
		if r.Valid {
			t.Errorf("%s: malformed run judged valid:\n%s", alg, dump(r))
		}
	}
}

// A blocked receive whose sender is itself stuck is charged to the root:
// P0 never gets m4 (its send by P2 is live), so it never sends m5, on
// which P1 waits.
func TestLostRootCause(t *testing.T) {
	src, err := tracetest.NewBuilder("P0", "P1", "P2").
		Send(0.1, "P2", "P0", "m4").
		Recv(0.2, "P0", "m4").
		Send(0.3, "P0", "P1", "m5").
		Recv(0.4, "P1", "m5").
		Build()
	if err != nil {
		t.Fatal(err)
	}
	b := newRun("acme", "P0", "P1", "P2")
	b.send("P2", "P0", "m4", 0, 1, nil)
	b.discard("P0", "m4", 1, trace.ReasonDuplicate, trace.None)
	b.m("m5")
	b.end("P0", trace.StateBlocked, 0, "m4")
	b.end("P1", trace.StateBlocked, 0, "m5")
	b.done("P2")
	for _, withSrc := range []bool{true, false} {
		s := src
		if !withSrc {
			s = nil
		}
		r := Check(b.run, s)
		p := r.Properties[1]
		if p.Name != report.NoLostMessages || p.Status != fail || len(p.Violations) != 1 {
			t.Fatalf("src=%v: want one no-lost-messages violation, got\n%s", withSrc, dump(r))
		}
		v := p.Violations[0]
		if !strings.Contains(v.Message, "m4 is lost") {
			t.Errorf("src=%v: root not m4: %s", withSrc, v.Message)
		}
		if withSrc && !strings.Contains(v.Because, "stuck behind it: P1 (blocked on m5)") {
			t.Errorf("dependent P1 not named: %s", v.Because)
		}
	}
}

// Without failure attribution, per-failure properties cannot pass.
func TestUnattributedRollback(t *testing.T) {
	run := msFailureRun(msOpts{})
	for i := range run.Events {
		if run.Events[i].Kind == trace.Rollback {
			run.Events[i].Failure = trace.None
		}
	}
	r := Check(run, nil)
	expect(t, r, map[string]report.Status{report.OrphanFree: unknown, report.DominoFree: unknown,
		report.LogReplayRules: unknown, report.MinimalRollback: na, report.NoDuplicates: pass})
}
