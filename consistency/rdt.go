package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/consistency/zgraph"
	"github.com/ckpt-dev/ckpt/rline"
)

// rollbackDependencyTrackable judges rdt: over the final live history
// (live checkpoints, messages with both ends live, each process's final
// state counting as its last checkpoint), every Z-path between two
// checkpoints is causally doubled (Wang 1997), so every rollback
// dependency is visible on-line to dependency vectors. FDAS promises it
// (promises.go); zgraph.CheckRDT judges it in O(ops · n).
func rollbackDependencyTrackable(m *history.Model, r *result) {
	g := finalGraph(m, r, trackable)
	if g == nil {
		return
	}
	vs, err := zgraph.CheckRDT(g.Pos, g.Graph.Msgs)
	if err != nil {
		r.cannotJudge(err.Error())
		return
	}
	for _, v := range vs {
		rc1, rc2 := g.Recvs[v.M1], g.Recvs[v.M2]
		seqs := []int32{rdtCkptSeq(m, v.From), m.SendOf[rc1], rc1, m.SendOf[rc2], rc2, rdtCkptSeq(m, v.To)}
		r.fail(seqs, func() (string, string) { return rdtWitness(m, g.Graph.Msgs, rc1, rc2, v) })
	}
}

// rdtWitness words violation v: a causal path from From reaches q (the
// receiver of M1, the sender of M2) with M1 only after q sent M2 in the
// same interval, and M2 reaches b before To, so [.. M1, M2] is a Z-path
// from From to To that no causal path doubles.
func rdtWitness(m *history.Model, msgs []rline.Msg, rc1, rc2 int32, v zgraph.RDTViolation) (string, string) {
	m1, m2 := msgs[v.M1], msgs[v.M2]
	q, b := m.ProcName(m2.From), m.ProcName(m2.To)
	n1, n2 := m.MsgName(m.Event(rc1).Msg), m.MsgName(m.Event(rc2).Msg)
	from, to := rdtCkptName(m, v.From), rdtCkptName(m, v.To)
	because := fmt.Sprintf("a causal path from %s reaches %s only with %s (from %s), which %s received after it had sent %s in the same checkpoint interval; %s received %s before %s. So a Z-path leads from %s to %s",
		from, q, n1, m.ProcName(m1.From), q, n2, b, n2, to, from, to)
	if v.From.P == v.To.P {
		because += fmt.Sprintf(" — back to %s's own %s, where no causal path can double it: %s lies on a Z-cycle through %s and is useless", b, to, from, to)
	} else {
		because += fmt.Sprintf(", and no causal path does: %s does not know of %s when it is taken", to, from)
	}
	return fmt.Sprintf("the rollback dependency of %s on %s is not trackable (Z-path through %s and %s not causally doubled)", to, from, n1, n2),
		because + ", so the dependency cannot be tracked on-line (RDT, Wang 1997), which FDAS promises"
}

// rdtCkptName names held checkpoint c.X of c.P (0 the initial one, one
// past the last the final state) as the report does.
func rdtCkptName(m *history.Model, c zgraph.Checkpoint) string {
	pr := &m.Procs[c.P]
	if int(c.X) >= len(pr.Held) {
		return fmt.Sprintf("%s's final state", m.ProcName(c.P))
	}
	ck := pr.HeldCkpt(int(c.X))
	if ck.Seq == history.None {
		return fmt.Sprintf("%s's initial checkpoint", m.ProcName(c.P))
	}
	return fmt.Sprintf("%s's checkpoint %d (seq %d)", m.ProcName(c.P), ck.ID, ck.Seq)
}

// rdtCkptSeq is the seq of held checkpoint c, or None for an implicit
// initial checkpoint or a final state.
func rdtCkptSeq(m *history.Model, c zgraph.Checkpoint) int32 {
	if pr := &m.Procs[c.P]; int(c.X) < len(pr.Held) {
		return pr.HeldCkpt(int(c.X)).Seq
	}
	return history.None
}
