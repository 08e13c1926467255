package consistency

import (
	"fmt"
	"strings"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/consistency/zgraph"
)

// zCycleFree judges SPEC §7 z-cycle-free: over the final live history
// (live checkpoints, messages with both ends live), no checkpoint lies on
// a Z-cycle (Netzer–Xu: a checkpoint is useless iff it is on one). MS,
// BCS, HMNR, FDAS (through RDT) and coordinated checkpointing (through
// its consistent rounds) promise it; PK does not (promises.go).
func zCycleFree(m *history.Model, r *result) {
	g := finalGraph(m, r, noUseless)
	if g == nil {
		return
	}
	for _, u := range g.Graph.UselessList() {
		r.failChain(func() (string, []int32, string) { return uselessWitness(m, g, u) })
	}
}

// uselessWitness is the witness of useless checkpoint u: the Z-cycle it
// is on, found only for the witnesses kept.
func uselessWitness(m *history.Model, g *history.FinalGraph, u zgraph.Checkpoint) (string, []int32, string) {
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
		msg := g.Graph.Msgs[mi]
		seqs = append(seqs, m.SendOf[rc], rc)
		hops = append(hops, fmt.Sprintf("%s (%s → %s, sent at seq %d in interval %d, received at seq %d in interval %d)",
			m.MsgName(m.Event(rc).Msg), m.ProcName(msg.From), m.ProcName(msg.To), m.SendOf[rc], g.Graph.Interval(msg.From, msg.SendOp), rc, g.Graph.Interval(msg.To, msg.RecvOp)))
	}
	return fmt.Sprintf("%s's checkpoint %d is useless (on a Z-cycle)", m.ProcName(u.P), ck.ID), seqs,
		fmt.Sprintf("the Z-path %s starts after %s's checkpoint %d%s and ends before it, so no consistent global checkpoint contains it; %s promises none",
			strings.Join(hops, ", then "), m.ProcName(u.P), ck.ID, snNote(ck), algName(m))
}

// snNote gives a checkpoint's number in a because-chain, for the
// algorithms that number theirs.
func snNote(ck *history.Ckpt) string {
	if ck.Sn == history.None {
		return ""
	}
	return fmt.Sprintf(" (sn %d)", ck.Sn)
}

// finalGraph returns the model's final checkpoint and message graph for
// a rule judging promise p, having set r's standing (promised). It is
// nil when the run's algorithm does not make the promise (the graph is
// then never built), and nil with the property unknown when the run
// lacks the op or copy numbers it needs or zgraph refused it.
func finalGraph(m *history.Model, r *result, p promise) *history.FinalGraph {
	switch {
	case !promised(m, r, p):
		return nil
	case m.Missing.Ops:
		r.cannotJudge(finalOpsWhy)
		return nil
	case m.Missing.Copy:
		r.cannotJudge(copiesWhy)
		return nil
	case m.Final.Built().Err != nil:
		r.cannotJudge("z-graph: " + m.Final.Err.Error())
		return nil
	}
	return m.Final
}
