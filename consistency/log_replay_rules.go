package consistency

import (
	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/consistency/report"
)

// logReplayRules judges SPEC §7 log-replay-rules: the algorithm's
// logging and replay rules, as rebuilt from the run (MS: log_replay_ms.go;
// PK: log_replay_pk.go).
func logReplayRules(m *history.Model) result {
	r := newResult(report.LogReplayRules)
	switch {
	case m.Alg.IsMS():
		if m.Missing.Failure {
			r.cannotJudge(failureWhy)
		}
		msLogReplay(m, &r)
	case m.Alg == history.PK:
		pkLogReplay(m, &r)
	default:
		r.cannotJudge(foreignWhy(m))
	}
	// What the checker rebuilds beyond the logging and replay rules
	// proper comes after their witnesses, which keep their order.
	more := newResult(report.LogReplayRules)
	switch {
	case m.Alg.IsMS():
		msStateRules(m, &more)
	case m.Alg == history.PK:
		pkStateRules(m, &more)
		pkHoldRules(m, &more)
	}
	if m.Alg != history.Foreign {
		resendRules(m, &more)
	}
	r.then(more)
	return r
}
