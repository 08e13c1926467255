package consistency

import (
	"fmt"
	"slices"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// resendRules judges re-transmissions (SPEC §5): a resend carries exactly
// the piggyback of the copy it repeats.
func resendRules(m *history.Model, r *result) {
	for i := range m.Run.Events {
		e := &m.Run.Events[i]
		if e.Kind != trace.Send || !e.Resend {
			continue
		}
		of := m.Copies.Index(e.Msg, e.Of)
		pb, orig := m.Run.PB(e), m.PB(of)
		if of < 0 || orig == nil || samePB(pb, orig) {
			continue
		}
		r.fail([]int32{m.Copies.Send[of], int32(i)}, func() (string, string) {
			return fmt.Sprintf("the resend of %s at seq %d does not carry the piggyback of copy %d", m.MsgName(e.Msg), i, e.Of),
				fmt.Sprintf("a resend repeats copy %d of %s, sent at seq %d, with exactly its piggyback, so that receivers judge it as they would the original; the resend at seq %d carries another",
					e.Of, m.MsgName(e.Msg), m.Copies.Send[of], i)
		})
	}
}

func samePB(a, b *trace.Piggyback) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Sn == b.Sn && a.Inc == b.Inc && a.RecLine == b.RecLine && sameF(a.F, b.F) && slices.Equal(a.VT, b.VT)
}
