package consistency

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// Two rules of MS's recoveries (SPEC §4.2) that a run can leave out
// without contradicting itself: found by an adversarial review, which
// removed one Rollback request and the recovery checkpoint it caused,
// after which the receiver delivered a message of the recovery it never
// applied and every rule passed.

// msRequestsToAll judges that a restarted process sends its recovery's
// Rollback request to every other process: "send Rollback(R) to every
// other process". A process left out never applies the recovery, and
// nothing else in the run need show it.
func msRequestsToAll(m *history.Model, r *result) {
	if m.Alg != history.MS && m.Alg != history.Textbook || m.Missing.Failure {
		return // unattributed requests may be the ones missing
	}
	type sent struct{ fi, to int32 }
	var all []sent
	for i := range m.Run.Events {
		e := &m.Run.Events[i]
		if e.Kind != trace.ControlSend || e.Control != trace.ControlRollback {
			continue
		}
		if fi, ok := m.FailureAt(e.Failure); ok && e.P == m.Failures[fi].P {
			all = append(all, sent{fi, e.Peer})
		}
	}
	slices.SortFunc(all, func(a, b sent) int { return cmp.Or(cmp.Compare(a.fi, b.fi), cmp.Compare(a.to, b.to)) })
	all = slices.Compact(all)
	k := 0
	for fi := range m.Failures {
		f := &m.Failures[fi]
		n := 0
		for ; k < len(all) && all[k].fi == int32(fi); k++ {
			n++
		}
		if f.Restart == history.None || n >= len(m.Procs)-1 {
			continue
		}
		r.fail([]int32{f.Restart}, func() (string, string) {
			return fmt.Sprintf("%s's restart at seq %d sends its Rollback request to %d of the %d other processes", m.ProcName(f.P), f.Restart, n, len(m.Procs)-1),
				fmt.Sprintf("a restarted MS process sends the Rollback request of its recovery to every other process, so that each applies it; the run shows requests for %s to %d of them", m.FailName(int32(fi)), n)
		})
	}
}

// msFromTheFuture judges that a receipt's message names no recovery its
// receiver has not applied: such a message is "from the future", and MS
// holds the receive until the Rollback requests for those recoveries
// have arrived and applies them first. The textbook variant has no
// vector F to compare, and without failure fields the ledger cannot
// tell which recoveries a rollback applied.
func msFromTheFuture(l *msLedger, seq int32, e *trace.RunEvent, r *result) {
	if l.textbook || l.m.Missing.Failure {
		return
	}
	m, p := l.m, e.P
	ci := m.Copies.Index(e.Msg, e.Copy)
	pb := m.PB(ci)
	if ci < 0 || pb == nil {
		return
	}
	for _, x := range pb.F {
		if fGet(l.F[p], x.P) >= x.Count {
			continue
		}
		r.fail([]int32{m.Copies.Send[ci], seq}, func() (string, string) {
			return fmt.Sprintf("%s delivers %s at seq %d before applying the recoveries it was sent after", m.ProcName(p), m.MsgName(e.Msg), seq),
				fmt.Sprintf("%s was sent at seq %d by a process that had applied %s, but %s had applied only %s when it received it; MS holds such a receive until the Rollback requests for those recoveries have arrived and applies them first",
					m.MsgName(e.Msg), m.Copies.Send[ci], fString(m, pb.F), m.ProcName(p), fString(m, l.F[p]))
		})
		return
	}
}
