package consistency

import (
	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/report"
)

// logReplayRules judges SPEC §7 log-replay-rules: the run conforms to
// the specification of the algorithm it names — spec is the verdict of
// its protocol spec (spec.go), stepped as the run streamed — and, for
// every algorithm, what the model checks of the same rules: the copies
// a rollback leaves in the mailbox listed at the end, PK's log against
// the source trace's flushes, no orphan delivered after its failure was
// handled (handled_orphans.go), and — judged as the run streamed, shape
// — a piggyback and control messages of the algorithm's shape
// (shape.go).
func logReplayRules(m *history.Model, spec, shape *result) result {
	r := newResult(report.LogReplayRules)
	switch {
	case spec != nil:
		r.then(*spec)
	case m.Alg.Recovers():
		r.cannotJudge("the protocol's rules are judged as the run streams into the checker")
	case m.Alg.Places():
		placementRecovery(m, &r)
	default:
		r.cannotJudge(foreignWhy(m))
	}
	if m.Alg.Recovers() {
		r.failWith(m, history.MailboxUnlisted, history.DiscardNotInMailbox, history.LogUnmatched, history.FlushUnlogged, history.LogUnflushed)
	}
	handledOrphanDeliveries(m, &r)
	if shape != nil {
		r.then(*shape)
	}
	return r
}
