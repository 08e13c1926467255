package consistency

import (
	"fmt"
	"strings"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/consistency/report"
)

// zCycleFree judges SPEC §7 z-cycle-free for MS: over the final live
// history (live checkpoints, messages with both ends live), no checkpoint
// lies on a Z-cycle (Netzer–Xu: a checkpoint is useless iff it is on
// one). PK does not promise it.
func zCycleFree(m *history.Model) result {
	r := newResult(report.ZCycleFree)
	g, ok := msFinalGraph(m, &r, "PK checkpoints are uncoordinated and may be useless; see stats.checkpoints.useless",
		fmt.Sprintf("foreign algorithm %q: whether it promises no useless checkpoints is unknown; see stats.checkpoints.useless", m.Run.Algorithm))
	if !ok {
		return r
	}
	if g.Err != nil {
		r.cannotJudge("z-graph: " + g.Err.Error())
		return r
	}
	if !m.Alg.IsMS() {
		return r
	}
	for _, u := range g.Graph.UselessList() {
		ck := m.Procs[u.P].HeldCkpt(int(u.X))
		seqs := []int32{}
		if ck.Seq != history.None {
			seqs = append(seqs, ck.Seq)
		}
		var hops []string
		for _, mi := range g.Graph.Cycle(u.P, u.X) {
			if int(mi) >= len(g.Recvs) {
				continue
			}
			rc := g.Recvs[mi]
			msg := g.Msgs[mi]
			seqs = append(seqs, m.SendOf[rc], rc)
			hops = append(hops, fmt.Sprintf("%s (%s → %s, sent at seq %d in interval %d, received at seq %d in interval %d)",
				m.MsgName(m.Event(rc).Msg), m.ProcName(msg.From), m.ProcName(msg.To), m.SendOf[rc], msg.FromInterval, rc, msg.ToInterval))
		}
		r.fail(fmt.Sprintf("%s's checkpoint %d is useless (on a Z-cycle)", m.ProcName(u.P), ck.ID), seqs,
			fmt.Sprintf("the Z-path %s starts after %s's checkpoint %d (sn %d) and ends before it, so no consistent global checkpoint contains it; MS promises none",
				strings.Join(hops, ", then "), m.ProcName(u.P), ck.ID, ck.Sn))
	}
	return r
}

// msFinalGraph returns the model's final checkpoint and message graph
// for one of MS's promises about it: n/a for PK (with note pkNA),
// unknown for a foreign algorithm (foreign) or when the run lacks the op
// or copy numbers the graph needs.
func msFinalGraph(m *history.Model, r *result, pkNA, foreign string) (*history.FinalGraph, bool) {
	switch {
	case m.Alg == history.PK:
		r.notApplicable(pkNA)
	case !m.Alg.IsMS():
		r.cannotJudge(foreign)
	}
	switch {
	case m.Missing.Ops:
		r.cannotJudge(finalOpsWhy)
		return nil, false
	case m.Missing.Copy:
		r.cannotJudge(copiesWhy)
		return nil, false
	}
	return m.Final, true
}
