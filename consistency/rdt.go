package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/consistency/rdt"
	"github.com/ckpt-dev/ckpt/report"
)

// rollbackDependencyTrackable judges rdt: over the final live history
// (live checkpoints, messages with both ends live, each process's final
// state counting as its last checkpoint), every Z-path between two
// checkpoints is causally doubled (Wang 1997), so every rollback
// dependency is visible on-line to dependency vectors. FDAS promises it
// (promises.go); package rdt judges it in O(ops · n) and explains each
// undoubled Z-path.
func rollbackDependencyTrackable(m *history.Model) result {
	r := newResult(report.RDT)
	g, judge := finalGraph(m, &r, trackable)
	if g == nil || !judge {
		return r
	}
	msgs := rdtMsgs(m, g)
	findings, err := rdt.Judge(livePositions(m), msgs, rdtNames(m, g))
	if err != nil {
		r.cannotJudge(err.Error())
		return r
	}
	for _, f := range findings {
		seqs := []int32{ckptSeq(m, f.From), m.SendOf[g.Recvs[f.M1]], g.Recvs[f.M1], m.SendOf[g.Recvs[f.M2]], g.Recvs[f.M2], ckptSeq(m, f.To)}
		r.failed(f.Message, seqs, f.Because)
	}
	return r
}

// livePositions returns per process the positions of its held
// checkpoints, the initial one first (one backing array).
func livePositions(m *history.Model) [][]int32 {
	total := 0
	for p := range m.Procs {
		total += len(m.Procs[p].Held)
	}
	all := make([]int32, 0, total)
	out := make([][]int32, len(m.Procs))
	for p := range m.Procs {
		lo := len(all)
		for k := range m.Procs[p].Held {
			all = append(all, m.Procs[p].HeldCkpt(k).Pos)
		}
		out[p] = all[lo:len(all):len(all)]
	}
	return out
}

// rdtMsgs returns the final graph's messages (both ends live) with their
// send and receive ops, in the graph's order.
func rdtMsgs(m *history.Model, g *history.FinalGraph) []rdt.Msg {
	out := make([]rdt.Msg, len(g.Recvs))
	for i, rc := range g.Recvs {
		re, se := m.Event(rc), m.Event(m.SendOf[rc])
		out[i] = rdt.Msg{From: se.P, Send: se.Op, To: re.P, Recv: re.Op}
	}
	return out
}

// rdtNames names the pattern's parts as the report does.
func rdtNames(m *history.Model, g *history.FinalGraph) rdt.Names {
	return rdt.Names{
		Proc: m.ProcName,
		Msg:  func(i int32) string { return m.MsgName(m.Event(g.Recvs[i]).Msg) },
		Ckpt: func(c rdt.Checkpoint) string {
			pr := &m.Procs[c.P]
			if int(c.X) >= len(pr.Held) {
				return fmt.Sprintf("%s's final state", m.ProcName(c.P))
			}
			ck := pr.HeldCkpt(int(c.X))
			if ck.Seq == history.None {
				return fmt.Sprintf("%s's initial checkpoint", m.ProcName(c.P))
			}
			return fmt.Sprintf("%s's checkpoint %d (seq %d)", m.ProcName(c.P), ck.ID, ck.Seq)
		},
	}
}

// ckptSeq is the seq of a held checkpoint, or None for an implicit
// initial checkpoint or a final state.
func ckptSeq(m *history.Model, c rdt.Checkpoint) int32 {
	if pr := &m.Procs[c.P]; int(c.X) < len(pr.Held) {
		return pr.HeldCkpt(int(c.X)).Seq
	}
	return history.None
}
