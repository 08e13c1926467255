package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// controlBodyRules judges what each control message sent for a failure
// carries against the recovery the checker rebuilt for that failure
// (issue 14): an MS Rollback request carries the recovery (o, c, r) —
// the failed process, its failure count and the number of the
// checkpoint its restart restored (SPEC §4.2); a PK token carries the
// announcement (i, inc, k) — the failed process, the incarnation that
// ended and the restart's pos (SPEC §5). Fields the body leaves out are
// not judged. That the body arrives as sent is the run's form
// (history.ControlBodyChanged, equivalence).
func controlBodyRules(m *history.Model, r *result) {
	for i := range m.Run.Events {
		e := &m.Run.Events[i]
		if e.Kind != trace.ControlSend {
			continue
		}
		b := m.Run.Body(e)
		if b == nil {
			continue
		}
		fi, ok := m.FailureAt(e.Failure)
		if !ok {
			continue
		}
		f := &m.Failures[fi]
		var want trace.ControlBody
		switch {
		case m.Alg.IsMS() && e.Control == trace.ControlRollback && f.Count != history.None:
			want = trace.ControlBody{Origin: f.P, Count: f.Count, R: f.R, Inc: history.None, K: history.None}
		case m.Alg == history.PK && e.Control == trace.ControlToken && f.Ann != nil:
			want = trace.ControlBody{Origin: f.Ann.Origin, Count: history.None, R: history.None, Inc: f.Ann.Inc, K: f.Ann.K}
		default:
			continue
		}
		if bodyFits(b, &want) {
			continue
		}
		r.fail([]int32{f.Seq, f.Restart, int32(i)}, func() (string, string) {
			got, exp := history.DescribeBody(m, b), history.DescribeBody(m, &want)
			return fmt.Sprintf("%s's %s control message at seq %d carries %s, not %s", m.ProcName(e.P), e.Control, i, got, exp),
				fmt.Sprintf("a control message for %s carries what its restart at seq %d made of it, rebuilt here as %s, but the one sent at seq %d carries %s",
					m.FailName(fi), f.Restart, exp, i, got)
		})
	}
}

// bodyFits reports whether every number body b writes is want's.
func bodyFits(b, want *trace.ControlBody) bool {
	fits := func(got, w int32) bool { return got == history.None || got == w }
	return fits(b.Origin, want.Origin) && fits(b.Count, want.Count) && fits(b.R, want.R) && fits(b.Inc, want.Inc) && fits(b.K, want.K)
}
