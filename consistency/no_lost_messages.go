package consistency

import (
	"fmt"
	"strings"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// noLostMessages judges SPEC §7 no-lost-messages: every process that did
// not finish is stuck at some op; a receive it still has to make whose
// send is live is a lost message, and a receive blocked on a message
// whose sender is itself stuck is charged to that sender (the root).
func noLostMessages(m *history.Model, r *result) {
	if m.Missing.Ops {
		r.cannotJudge(finalOpsWhy)
		return
	}
	st := newStuck(m)
	for p := range m.Procs {
		lostAt(m, st, int32(p), r)
	}
}

// stuck says, per process, on which message a process blocked on a
// message whose send is not live waits, whom it waits for, and who is
// stuck behind a root.
type stuck struct {
	blockedOn []int32 // per process: the message with no live send, or None
	behind    [][]int32
}

func newStuck(m *history.Model) *stuck {
	np := len(m.Procs)
	st := &stuck{blockedOn: make([]int32, np), behind: make([][]int32, np)}
	waits := make([]int32, np)
	for p := range waits {
		waits[p], st.blockedOn[p] = history.None, history.None
		if e := endOf(m, int32(p)); e.State == trace.StateBlocked && e.Msg >= 0 && int(e.Msg) < len(m.LiveSend) && m.LiveSend[e.Msg] == history.None {
			st.blockedOn[p] = e.Msg
			if s := m.Sender(e.Msg); s != history.None && s != int32(p) {
				waits[p] = s
			}
		}
	}
	// Roots: follow waits (bounded, cycles stop) to the process nobody
	// explains.
	for p := range waits {
		if st.blockedOn[p] == history.None {
			continue
		}
		q := int32(p)
		for steps := 0; steps < np && waits[q] != history.None && st.blockedOn[waits[q]] != history.None; steps++ {
			q = waits[q]
		}
		root := waits[q]
		if root == history.None {
			root = q
		}
		st.behind[root] = append(st.behind[root], int32(p))
	}
	return st
}

// lostAt judges process p: a blocked process charged to its root, or the
// first receive still ahead in its program whose message has a live
// send and no live receipt.
func lostAt(m *history.Model, st *stuck, p int32, r *result) {
	ps, end, n := &m.Procs[p], endOf(m, p), m.ProgLen(p)
	switch {
	case end.State == trace.StateDone && len(ps.Live) >= n:
		return
	case st.blockedOn[p] != history.None:
		blockedOnUnsent(m, st, p, r)
		return
	case end.State == trace.StateBlocked && lostReceive(m, st, p, len(ps.Live), history.ProgOp{Kind: trace.Recv, Msg: end.Msg}, r):
		// Blocked on a message whose send is live: that receive is what
		// it has still to run, whatever its program says.
		return
	}
	for k := len(ps.Live); k < n; k++ {
		if lostReceive(m, st, p, k, m.ProgOp(p, int32(k)), r) {
			return
		}
	}
}

// lostReceive reports whether op k of p's program, still ahead, is a
// receive of a message whose send is live and never received: then it
// fails the property, naming who is stuck behind p.
func lostReceive(m *history.Model, st *stuck, p int32, k int, op history.ProgOp, r *result) bool {
	msg := op.Msg
	if op.Kind != trace.Recv || msg < 0 || int(msg) >= len(m.LiveSend) {
		return false
	}
	snd := m.LiveSend[msg]
	if snd == history.None || m.LiveRecv[msg] != history.None {
		return false
	}
	r.failChain(func() (string, []int32, string) {
		seqs, because := lostWhy(m, st, p, k, msg, snd)
		return fmt.Sprintf("%s is lost: %s never receives it", m.MsgName(msg), m.ProcName(p)), seqs, because
	})
	return true
}

// lostWhy returns the seqs and the because-chain of lostReceive's
// witness: why msg, received by op k of p's program and sent live at
// snd, is lost, and who is stuck behind p.
func lostWhy(m *history.Model, st *stuck, p int32, k int, msg, snd int32) ([]int32, string) {
	ps := &m.Procs[p]
	seqs := []int32{snd}
	var b strings.Builder
	stopped, end := "has no end event", endOf(m, p)
	if ps.End != history.None {
		seqs = append(seqs, ps.End)
		stopped = "ended " + end.State.String()
	}
	if end.State == trace.StateBlocked && end.Msg == msg {
		fmt.Fprintf(&b, "%s ended blocked at op %d on %s, whose send (%s) is live, yet no copy of it was delivered: the message was lost",
			m.ProcName(p), k, m.MsgName(msg), m.Describe(snd))
	} else {
		fmt.Fprintf(&b, "%s %s after %d live ops; its program still has to receive %s (op %d), whose send (%s) is live, so the receipt is missing from the final live history",
			m.ProcName(p), stopped, len(ps.Live), m.MsgName(msg), k, m.Describe(snd))
	}
	if len(st.behind[p]) > 0 {
		var names []string
		for _, q := range st.behind[p] {
			names = append(names, fmt.Sprintf("%s (blocked on %s)", m.ProcName(q), m.MsgName(st.blockedOn[q])))
			seqs = append(seqs, m.Procs[q].End)
		}
		fmt.Fprintf(&b, "; stuck behind it: %s", strings.Join(names, ", "))
	}
	return seqs, b.String()
}

// blockedOnUnsent judges a process blocked on a message whose send is not
// live: charged to its root, unless nothing explains it.
func blockedOnUnsent(m *history.Model, st *stuck, p int32, r *result) {
	msg := st.blockedOn[p]
	s := m.Sender(msg)
	switch {
	case s == history.None:
		r.cannotJudge(fmt.Sprintf("%s is blocked on %s, which the run never sends; without the source trace its sender is unknown", m.ProcName(p), m.MsgName(msg)))
	case s == p || endOf(m, s).State == trace.StateDone:
		end := m.Procs[p].End
		r.fail([]int32{end}, func() (string, string) {
			return fmt.Sprintf("%s is blocked on %s, which is never sent live", m.ProcName(p), m.MsgName(msg)),
				fmt.Sprintf("%s ended blocked at op %d on %s, but the final live history holds no send of it and its sender %s finished without sending it",
					m.ProcName(p), m.Event(end).Op, m.MsgName(msg), m.ProcName(s))
		})
	}
}

// endOf returns process p's end event, or a zero one (of state none)
// when the run has none.
func endOf(m *history.Model, p int32) *trace.RunEvent {
	if s := m.Procs[p].End; s != history.None {
		return m.Event(s)
	}
	return &trace.RunEvent{}
}
