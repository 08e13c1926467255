package consistency

import (
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// What a PK token hop resends (log_replay_rules_pk_token_resend.go).
// Found on 2026-12-04: a hop resending a message twice, its extra copy
// listed unconsumed, passed every property.

// tokenHops: P1 receives m1 from P0 and m2 from P2, then fails with
// nothing logged. Its token lists nothing, so P2 resends m2 (run seq 8)
// and P0 resends m1 (seq 11), each just before forwarding the token.
func tokenHops(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1", "P2").
		Send(0.1, "P0", "P1", "m1").Recv(0.3, "P1", "m1").Send(0.4, "P2", "P1", "m2").Recv(0.5, "P1", "m2").
		Fail(1, "P1").Internal(3, "P1"))
}

// tokenListsAll: as tokenHops with a flush before the fail, so the
// restart replays both receipts from the log, the token lists m1 and m2,
// and no hop resends anything.
func tokenListsAll(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1", "P2").
		Send(0.1, "P0", "P1", "m1").Recv(0.3, "P1", "m1").Send(0.4, "P2", "P1", "m2").Recv(0.5, "P1", "m2").
		Flush(0.6, "P1").Fail(1, "P1").Internal(3, "P1"))
}

// tokenRollsBack: P2's send of m2 follows its receipt of x, which P1 sent
// after m1 and lost in its crash: at the token P2 rolls back both (run
// seq 10) and resends nothing.
func tokenRollsBack(t *testing.T) *trace.Trace {
	return mustBuild(t, tracetest.NewBuilder("P0", "P1", "P2").
		Send(0.1, "P0", "P1", "m1").Recv(0.3, "P1", "m1").Send(0.35, "P1", "P2", "x").Recv(0.4, "P2", "x").
		Send(0.45, "P2", "P1", "m2").Recv(0.5, "P1", "m2").Fail(1, "P1").Internal(3, "P1"))
}

// extraResend returns the PK run of src with a resend of copy 1 of m2 by
// P2 inserted at seq, numbered copy cp, at time t, for failure seq fail,
// and its copy listed unconsumed in P1's mailbox at the end.
func extraResend(src func(*testing.T) *trace.Trace, seq, cp int32, t float64, fail int32) func(*testing.T) *trace.Run {
	return func(tt *testing.T) *trace.Run {
		run := replayOf(tt, "pk", src(tt))
		m2 := msgID(run, "m2")
		orig := run.Events[firstSendOf(tt, run, m2)]
		e := trace.NewRunEvent(trace.Send, trace.Time(t*float64(trace.Second)), 2)
		e.Msg, e.Peer, e.Op, e.Copy, e.Of, e.Resend, e.PB, e.Failure = m2, 1, orig.Op, cp, 1, true, orig.PB, fail
		run = insertAt(run, seq, e)
		u := trace.NewRunEvent(trace.Unconsumed, run.Events[len(run.Events)-1].T, 1)
		u.Msg, u.Copy = m2, cp
		return insertAt(run, int32(len(run.Events)), u)
	}
}

// firstSendOf returns the seq of run's first send of message msg.
func firstSendOf(t *testing.T, run *trace.Run, msg int32) int32 {
	t.Helper()
	for i := range run.Events {
		if e := &run.Events[i]; e.Kind == trace.Send && e.Msg == msg {
			return int32(i)
		}
	}
	t.Fatalf("no send of message %d", msg)
	return 0
}

func TestTokenHopResends(t *testing.T) {
	lrr := report.LogReplayRules
	any := []string{""} // other rules may see the forgery too
	checkRuleCases(t, []ruleCase{
		{name: "replayed", run: replayed("pk", tokenHops), src: tokenHops, prop: lrr, status: pass},
		{name: "replayed-lists-all", run: replayed("pk", tokenListsAll), src: tokenListsAll, prop: lrr, status: pass},
		{name: "replayed-rolls-back", run: replayed("pk", tokenRollsBack), src: tokenRollsBack, prop: lrr, status: pass},
		// P2 resends m2 twice at its hop (copies 2 and 3): every other
		// property passes, the extra copy left in P1's mailbox.
		{name: "resent-twice", run: extraResend(tokenHops, 9, 3, 2.5, 4), src: tokenHops, prop: lrr, status: fail,
			witness: "P2 resends its send of m2 at seq 2 more than once for the failure at seq 4"},
		// P2 resends m2, which the token lists: P1's recovered state has it.
		{name: "resent-listed", run: extraResend(tokenListsAll, 11, 2, 2.5, 6), src: tokenListsAll, prop: lrr, status: fail,
			witness: "the token lists (m2, inc 0)"},
		// P2 resends m2 after its rollback undid the send (orphan-free
		// sees a resend of a send not live too; the copy numbers clash).
		{name: "resent-undone", run: extraResend(tokenRollsBack, 11, 2, 2.5, 6), src: tokenRollsBack, prop: lrr, status: fail,
			witness: "which seq 10 undid", besides: any,
			also: map[string]report.Status{report.OrphanFree: fail, report.Equivalence: fail}},
		// P2's resend repeats P0's send of m1.
		{name: "resent-another's-send", run: func(t *testing.T) *trace.Run {
			return forge(t, replayOf(t, "pk", tokenHops(t)), 8, trace.Send, func(e *trace.RunEvent) {
				e.Msg = msgID(replayOf(t, "pk", tokenHops(t)), "m1")
			})
		}, src: tokenHops, prop: lrr, status: fail, witness: "it repeats the send at seq 0, by P0 to P1", besides: any,
			also: map[string]report.Status{report.OrphanFree: fail, report.Equivalence: fail}},
		// P2 resends m2 before the token reaches it.
		{name: "resent-before-the-token", run: func(t *testing.T) *trace.Run {
			return swapped(replayOf(t, "pk", tokenHops(t)), 7, func(*trace.RunEvent) {})
		}, src: tokenHops, prop: lrr, status: fail,
			witness: "P2 resends m2 at seq 7, neither at its restart nor at a token", besides: any,
			also: map[string]report.Status{report.Equivalence: fail}},
		// The extra resend of resent-twice without its of (the model
		// finds the send at its op): still found.
		{name: "resent-twice-no-of", run: func(t *testing.T) *trace.Run {
			return forge(t, extraResend(tokenHops, 9, 3, 2.5, 4)(t), 9, trace.Send, func(e *trace.RunEvent) { e.Of = 0 })
		}, src: tokenHops, prop: lrr, status: fail,
			witness: "P2 resends its send of m2 at seq 2 more than once for the failure at seq 4"},
		// The extra resend of resent-twice, and every resend, without the
		// failure field SPEC §6 does not require of them: still found.
		{name: "resent-twice-no-failure-fields", run: func(t *testing.T) *trace.Run {
			run := extraResend(tokenHops, 9, 3, 2.5, trace.None)(t)
			for i := range run.Events {
				if run.Events[i].Resend {
					run.Events[i].Failure = trace.None
				}
			}
			return run
		}, src: tokenHops, prop: lrr, status: fail,
			witness: "P2 resends its send of m2 at seq 2 more than once for the failure at seq 4"},
	})
}

// A send a hop repeats three times is one violation, not one per extra
// copy.
func TestTokenHopResentThrice(t *testing.T) {
	run := extraResend(tokenHops, 9, 3, 2.5, 4)(t)
	m2 := msgID(run, "m2")
	e := run.Events[9]
	e.Copy = 4
	run = insertAt(run, 10, e)
	u := trace.NewRunEvent(trace.Unconsumed, run.Events[len(run.Events)-1].T, 1)
	u.Msg, u.Copy = m2, 4
	run = insertAt(run, int32(len(run.Events)), u)
	vs := tokenWitnesses(t, run, tokenHops(t), "more than once")
	if len(vs) != 1 {
		t.Fatalf("%d violations say m2 was resent more than once, want 1: %v", len(vs), vs)
	}
}
