package consistency

import (
	"testing"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// The token hash's guards (log_replay_rules_token_hash.go). The multiset
// hash accepts a token's list when it sums like the receipts on the
// announcer's chain of live ops; a chain with a gap, or with a receipt
// whose send is unknown, sums like some list all the same, so the hash
// must refuse it and leave the verdict to the exact walk, which says
// the set cannot be rebuilt: log-replay-rules is unknown (the gap
// itself fails equivalence). Each token below lists exactly what the
// broken chain would sum to: without its guard the hash accepts it and
// the property passes.

// tokenGapOpts build one broken chain at a time.
type tokenGapOpts struct {
	// recvOp is the op number P0's receipt of m1 shows; above 0 the
	// ops before it never show (a gap).
	recvOp int32
	// internal: P0's op 0 is an internal event, shown.
	internal bool
	// logged: the receipt is logged and the restart keeps it (the gap
	// is below it); else the restart stops just before it (the gap is
	// the restart's last op) and P1 resends m1.
	logged bool
}

// tokenGapRun: P1 sends m1 to P0, P0 receives it at op o.recvOp, crashes
// and restarts; the token goes round the ring of two and P0 resumes.
func tokenGapRun(o tokenGapOpts) *trace.Run {
	b := newRun("pk", "P0", "P1")
	pb := pkPB([2]int32{0, 0}, [2]int32{0, 1})
	b.send("P1", "P0", "m1", 0, 1, pb)
	if o.internal {
		b.internal("P0", 0)
	}
	b.recv("P0", "P1", "m1", o.recvOp, 1, trace.ViaNet)
	pos, undone := o.recvOp, int32(1)
	var listed []trace.Identity
	if o.logged {
		b.log("P0", "m1", o.recvOp, 1)
		pos, undone = o.recvOp+1, 0
		listed = append(listed, trace.Identity{Msg: b.m("m1"), Inc: 0})
	}
	f := b.fail("P0")
	b.restart("P0", 0, pos, undone, f)
	b.control("P0", "P1", trace.ControlToken, f, receivedToken(0, 0, pos, listed...))
	if !o.logged {
		b.resend("P1", "P0", "m1", 0, 2, 1, pb)
	}
	b.control("P1", "P0", trace.ControlToken, f, receivedToken(0, 0, pos, listed...))
	b.add(trace.Resume, "P0", nil)
	if !o.logged {
		b.recv("P0", "P1", "m1", o.recvOp, 2, trace.ViaNet)
	}
	b.done("P0", "P1")
	return b.run
}

// receivedToken is a token body with a received list.
func receivedToken(origin, inc, k int32, ids ...trace.Identity) *trace.ControlBody {
	body := token(origin, inc, k)
	body.Received = append([]trace.Identity{}, ids...)
	return body
}

func TestTokenHashGuards(t *testing.T) {
	gap := func(o tokenGapOpts) func(*testing.T) *trace.Run {
		return func(*testing.T) *trace.Run { return tokenGapRun(o) }
	}
	const gaps = "P0's live history at its restart at seq 4 has gaps, so the receipts its token lists cannot be rebuilt"
	brokenOps := map[string]report.Status{report.Equivalence: fail}
	checkRuleCases(t, []ruleCase{
		// The chain's bottom: op 1 with no op 0 below it.
		{name: "gap-below-receipt", run: gap(tokenGapOpts{recvOp: 1, logged: true}),
			prop: report.LogReplayRules, status: unknown, witness: gaps, also: brokenOps},
		// The restart keeps op 0, which never showed: no live op at all.
		{name: "gap-is-whole-restart", run: gap(tokenGapOpts{recvOp: 1}),
			prop: report.LogReplayRules, status: unknown, witness: "P0's live history at its restart at seq 3 has gaps", also: brokenOps},
		// The restart keeps ops 0 and 1; op 1 never showed.
		{name: "gap-at-restart-top", run: gap(tokenGapOpts{recvOp: 2, internal: true}),
			prop: report.LogReplayRules, status: unknown, witness: gaps, also: brokenOps},
		// Ops 0 and 2 show, op 1 never does: the receipt's predecessor
		// is none, not op 0, so the chain is broken above op 0. Were the
		// model to link across the gap, the chain would sum like the list.
		{name: "gap-mid-chain", run: gap(tokenGapOpts{recvOp: 2, internal: true, logged: true}),
			prop: report.LogReplayRules, status: unknown, witness: "P0's live history at its restart at seq 5 has gaps", also: brokenOps},
		// P0's checkpoint holds a receipt of m9, which no send
		// transmitted; its token lists nothing (a chain that skipped the
		// unknown receipt).
		{name: "receipt-without-send", run: pkUnsentRun(unsentOpts{logged: true, ckpt: true}),
			prop: report.LogReplayRules, status: unknown,
			witness: "P0's receipt of m9 at seq 1 takes a copy no send transmitted, so its identity, which a token lists, cannot be told",
			also:    map[string]report.Status{report.OrphanFree: fail, report.Equivalence: unknown}},
	})
}
