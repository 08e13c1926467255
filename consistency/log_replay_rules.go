package consistency

import (
	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/consistency/report"
)

// logReplayRules judges SPEC §7 log-replay-rules: the algorithm's
// logging and replay rules (log_replay_rules_ms.go, _pk.go), and what
// the checker rebuilds of the algorithm's state to judge them — the
// piggybacks, checkpoint numbers and forced checkpoints of MS
// (_ms_state.go), the vector times and the hold of PK (_pk_state.go,
// _pk_hold.go), the checkpoints restores name (_restore.go), the types
// of checkpoints (_ckpt_type.go), rollback causes (_cause.go), control
// bodies (_control.go), PK
// tokens' received lists (_token.go), discards (_discard.go), resends
// (_resend.go), the piggyback fields and control messages the named
// algorithm sends (_shape.go) — and, for every algorithm, that no
// process delivers an orphan of a failure it has handled (_handled.go).
func logReplayRules(m *history.Model) result { return logReplayRulesWith(m, nil) }

// logReplayRulesWith is logReplayRules with PK's vector times judged
// already, as the run streamed (vts), or nil to judge them now.
func logReplayRulesWith(m *history.Model, vts *result) result {
	r := newResult(report.LogReplayRules)
	switch {
	case m.Alg.IsMS():
		if m.Missing.Failure {
			r.cannotJudge(failureWhy)
		}
		msLogReplay(m, &r)
	case m.Alg == history.PK:
		pkLogReplay(m, &r)
	case m.Alg.Places():
		placementRecovery(m, &r)
	default:
		r.cannotJudge(foreignWhy(m))
	}
	// What the checker rebuilds beyond the logging and replay rules
	// proper comes after their witnesses, which keep their order.
	more := newResult(report.LogReplayRules)
	switch {
	case m.Alg.IsMS():
		msStateRules(m, &more)
		msAppliesRecoveries(m, &more)
		msRequestsToAll(m, &more)
	case m.Alg == history.PK:
		switch {
		case vts == nil:
			pkStateRules(m, &more)
		case !m.Missing.Replay(): // else pkLogReplay said why
			more.then(*vts)
		}
		pkHoldRules(m, &more)
		pkFlushRule(m, &more)
		more.failWith(m, history.FlushUnlogged, history.LogUnflushed)
		pkDiscards(m, &more)
		pkTokenReceipts(m, &more)
		pkTokenRing(m, &more)
		pkRetransmits(m, &more)
	}
	if m.Alg.Recovers() {
		ckptTypeRules(m, &more)
		controlBodyRules(m, &more)
		restoreRules(m, &more)
		causeRules(m, &more)
		resendRules(m, &more)
		// Which copies a rollback puts back is the algorithm's rule:
		// the model follows MS's and PK's.
		more.failWith(m, history.MailboxUnlisted, history.DiscardNotInMailbox, history.LogUnmatched)
	}
	handledOrphanDeliveries(m, &more)
	shapeRules(m, &more)
	r.then(more)
	return r
}
