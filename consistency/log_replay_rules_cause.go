package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// rollsBackFor reports whether alg rolls back for cause c: MS on a
// Rollback request, its textbook variant also on a message whose
// piggyback names a later recovery (the seed's rule, docs/ms.md), PK on a
// token.
func rollsBackFor(alg history.Alg, c trace.Cause) bool {
	switch c {
	case trace.CauseRequest:
		return alg.IsMS()
	case trace.CauseToken:
		return alg == history.PK
	case trace.CauseMessage:
		return alg == history.Textbook
	}
	return false
}

// causeRules judges each rollback's cause (SPEC §6): one its algorithm
// rolls back for and, for a request or a token, one the process has
// received for the failure the rollback names (the model checks that as
// it hears of failures: history.CauseUnheard). Diagrams, recoveries and
// witnesses show the cause, so a forged one misleads whoever reads them.
func causeRules(m *history.Model, r *result) {
	for i := range m.Run.Events {
		e := &m.Run.Events[i]
		if e.Kind == trace.Rollback && e.Cause != trace.CauseNone && !rollsBackFor(m.Alg, e.Cause) {
			r.fail([]int32{e.Seq}, func() (string, string) {
				return fmt.Sprintf("%s's rollback at seq %d says cause %s, for which %s never rolls back", m.ProcName(e.P), e.Seq, e.Cause, algName(m)),
					fmt.Sprintf("%s rolls back %s only", algName(m), causesOf(m.Alg))
			})
		}
	}
	r.failWith(m, history.CauseUnheard)
}

// causesOf says for which causes alg rolls back.
func causesOf(alg history.Alg) string {
	switch alg {
	case history.MS:
		return "on a Rollback request (cause request)"
	case history.Textbook:
		return "on a Rollback request (cause request) or a message naming a later recovery (cause message)"
	case history.PK:
		return "on a token (cause token)"
	}
	return "never"
}
