package consistency

import (
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/consistency/report"
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
}

func msFailureRun(o msOpts) *trace.Run {
	b := newRun("ms", "P0", "P1")
	b.internal("P1", 0)
	b.ckpt("P0", 1, trace.CkptBasic, 0, 1, trace.None)
	b.send("P0", "P1", "m1", 0, 1, msPB(1))
	b.ckpt("P1", 1, trace.CkptForced, 1, 1, trace.None)
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
	switch {
	case o.noRollback:
		b.add(trace.Unconsumed, "P1", func(e *trace.RunEvent) { e.Msg, e.Copy = b.m("m1"), 2 })
		b.done("P0", "P1")
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
	tb := trace.NewBuilder("P0", "P1").
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

func TestMSCleanFailure(t *testing.T) {
	r := Check(msFailureRun(msOpts{}), msSource(t, false))
	expect(t, r, map[string]report.Status{
		report.OrphanFree: pass, report.NoLostMessages: pass, report.NoDuplicates: pass,
		report.LogReplayRules: pass, report.DominoFree: pass, report.ZCycleFree: pass,
		report.SnLines: pass, report.MinimalRollback: na, report.Equivalence: pass,
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
			map[string]report.Status{report.OrphanFree: fail}, "m1 is an orphan of failure seq 6"},
		{"lost resend", msFailureRun(msOpts{discardResent: true}), true,
			map[string]report.Status{report.NoLostMessages: fail, report.Equivalence: fail}, "ended blocked at op 1 on m1"},
		{"rollback too far", msFailureRun(msOpts{rollbackInit: true}), true,
			map[string]report.Status{report.DominoFree: fail}, "earliest checkpoint numbered ≥ 1, checkpoint 1"},
		{"restart not from latest", msFailureRun(msOpts{restartInit: true}), true,
			map[string]report.Status{report.DominoFree: fail}, "latest checkpoint"},
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
