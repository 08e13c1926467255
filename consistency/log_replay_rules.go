package consistency

import (
	"github.com/ckpt-dev/ckpt/consistency/history"
)

// logReplayRules judges SPEC §7 log-replay-rules: the run conforms to
// the specification of the algorithm it names — the protocol spec
// stepped as the run streamed, with the shape of its piggybacks and
// control messages (shape.go) and the copies its rollbacks leave in the
// mailbox — and, for every algorithm, no orphan is delivered after its
// failure was handled (handled_orphans.go). What the specs found comes
// first; this adds the standing of an algorithm without a spec.
func logReplayRules(m *history.Model, r *result) {
	recoveryKnown(m, r)
	handledOrphanDeliveries(m, r)
}
