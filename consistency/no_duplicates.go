package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// noDuplicates judges SPEC §7 no-duplicates: no message id is received
// more than once in the final live history. It also fails when a copy is
// taken from a mailbox that no longer holds it — a copy delivered twice,
// e.g. re-consumed after a restart undid the receipt that took it (a
// restart puts no copy back): the second receipt is a delivery the
// network never made, whatever the final history shows.
func noDuplicates(m *history.Model, r *result) {
	if m.Missing.Ops {
		r.cannotJudge(finalOpsWhy)
		return
	}
	for _, s := range m.Repeats {
		first := m.LiveRecv[m.Event(s).Msg]
		r.fail([]int32{first, s}, func() (string, string) {
			return fmt.Sprintf("%s is received twice in the final live history", m.MsgName(m.Event(s).Msg)),
				fmt.Sprintf("%s and %s both stay live, so the application consumed %s twice", m.Describe(first), m.Describe(s), m.MsgName(m.Event(s).Msg))
		})
	}
	for _, t := range m.Takes {
		takenTwice(m, t, r)
	}
}

// takenTwice reports a copy taken from a mailbox that no longer held it,
// unless both receipts stay live (the repeat above reports that).
func takenTwice(m *history.Model, t history.Take, r *result) {
	if t.First == history.None {
		return
	}
	first, second := m.Event(t.First), m.Event(t.Second)
	if first.Kind == trace.Recv && m.UndoneBy[t.First] == history.None && m.UndoneBy[t.Second] == history.None {
		return
	}
	if second.Via == trace.ViaNone {
		// It may have come from a message log rather than the mailbox.
		r.cannotJudge(fmt.Sprintf("%s's receive at seq %d takes copy %d of %s, which seq %d took before, and names no via: whether it came from a message log cannot be told",
			m.ProcName(second.P), t.Second, second.Copy, m.MsgName(second.Msg), t.First))
		return
	}
	r.fail([]int32{m.Copies.Send[t.Copy], t.First, t.Second}, func() (string, string) {
		return fmt.Sprintf("copy %d of %s is taken twice from %s's mailbox", second.Copy, m.MsgName(second.Msg), m.ProcName(second.P)),
			fmt.Sprintf("%s sent copy %d of %s once, at seq %d; the %s at seq %d took it from the mailbox, %s, yet the receive at seq %d takes it again: one transmission delivered twice",
				m.ProcName(m.Event(m.Copies.Send[t.Copy]).P), second.Copy, m.MsgName(second.Msg), m.Copies.Send[t.Copy], first.Kind, t.First, notPutBack(m, t.First), t.Second)
	})
}

// notPutBack says why the copy the receive or discard at first took is
// not in the mailbox again.
func notPutBack(m *history.Model, first int32) string {
	by := m.UndoneBy[first]
	if by < 0 || m.Event(first).Kind != trace.Recv {
		return "and nothing put it back"
	}
	switch e := m.Event(by); {
	case e.Kind == trace.Restart:
		return fmt.Sprintf("and the restart at seq %d that undid that receipt puts no copy back (the copy is lost with the crash; its sender must resend it)", by)
	case m.Alg.IsMS():
		return fmt.Sprintf("and the rollback at seq %d that undid that receipt puts no copy back (MS replays it from the log or its sender re-sends it)", by)
	}
	return fmt.Sprintf("and the rollback at seq %d that undid that receipt did not put it back (PK requeues only copies that are no orphan)", by)
}
