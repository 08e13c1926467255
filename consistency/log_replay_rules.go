package consistency

import (
	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/report"
)

// logReplayRules judges SPEC §7 log-replay-rules: the algorithm's
// logging and replay rules (log_replay_rules_ms.go, _pk.go), and what
// the checker rebuilds of the algorithm's state to judge them — the
// piggybacks, checkpoint numbers and forced checkpoints of MS
// (_ms_state.go), the vector times and the hold of PK (_pk_state.go,
// _pk_hold.go), the checkpoints restores name (_restore.go), the types
// of checkpoints (_ckpt_type.go), rollback causes (_cause.go), control
// bodies (_control.go), PK
// tokens' received lists (_token.go) and what a hop resends
// (_pk_token_resend.go), discards (_discard.go), resends
// (_resend.go), the piggyback fields and control messages the named
// algorithm sends (_shape.go) — and, for every algorithm, that no
// process delivers an orphan of a failure it has handled (_handled.go).
func logReplayRules(m *history.Model) result { return logReplayRulesWith(m, nil) }

// logReplayRulesWith is logReplayRules with PK's vector times judged
// already, as the run streamed (vts), or nil to judge them now.
func logReplayRulesWith(m *history.Model, vts *result) result {
	parts := logReplayParts(m, vts)
	out := make([]result, len(parts))
	for i, part := range parts {
		out[i] = newResult(report.LogReplayRules)
		part(&out[i])
	}
	return joinParts(out)
}

// logReplayParts are the log-replay rules in parts, each judged into a
// result of its own: joined in order (joinParts), the results are the
// rule's. The costliest rule by far (10^7 events: two thirds of the
// rules' time under PK), judged whole it kept one core busy long after
// the other had finished every other rule; judgeRules runs its parts as
// tasks of their own. No part reads what another writes.
func logReplayParts(m *history.Model, vts *result) []func(r *result) {
	parts := []func(r *result){func(r *result) { logReplayProper(m, r) }}
	// What the checker rebuilds beyond the logging and replay rules
	// proper comes after their witnesses, which keep their order.
	switch {
	case m.Alg.IsMS():
		parts = append(parts, func(r *result) { msStateRules(m, r) }, func(r *result) {
			msAppliesRecoveries(m, r)
			msRequestsToAll(m, r)
		})
	case m.Alg == history.PK:
		parts = append(parts, func(r *result) {
			switch {
			case vts == nil:
				pkStateRules(m, r)
			case !m.Missing.Replay(): // else pkLogReplay said why
				r.then(*vts)
			}
			pkHoldRules(m, r)
			pkFlushRule(m, r)
			r.failWith(m, history.FlushUnlogged, history.LogUnflushed)
			pkDiscards(m, r)
		}, func(r *result) {
			// A hop's resends are judged against its token's list
			// when that list is judged right.
			pkTokenResends(m, pkTokenReceipts(m, r), r)
		}, func(r *result) {
			pkTokenRing(m, r)
			pkRetransmits(m, r)
		})
	}
	if m.Alg.Recovers() {
		parts = append(parts, func(r *result) {
			ckptTypeRules(m, r)
			controlBodyRules(m, r)
			restoreRules(m, r)
		}, func(r *result) {
			causeRules(m, r)
			resendRules(m, r)
			// Which copies a rollback puts back is the algorithm's rule:
			// the model follows MS's and PK's.
			r.failWith(m, history.MailboxUnlisted, history.DiscardNotInMailbox, history.LogUnmatched)
		})
	}
	return append(parts, func(r *result) { handledOrphanDeliveries(m, r) }, func(r *result) { shapeRules(m, r) })
}

// logReplayProper judges the logging and replay rules proper of the
// algorithm the run names.
func logReplayProper(m *history.Model, r *result) {
	switch {
	case m.Alg.IsMS():
		if m.Missing.Failure {
			r.cannotJudge(failureWhy)
		}
		msLogReplay(m, r)
	case m.Alg == history.PK:
		pkLogReplay(m, r)
	case m.Alg.Places():
		placementRecovery(m, r)
	default:
		r.cannotJudge(foreignWhy(m))
	}
}

// joinParts joins the parts' results in order: then keeps the first
// witnesses in order and the exact count, and the first reason a part
// gives for n/a or unknown, as one result judged part after part would.
func joinParts(parts []result) result {
	r := parts[0]
	for _, o := range parts[1:] {
		r.then(o)
	}
	return r
}
