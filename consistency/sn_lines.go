package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
)

// snLines judges SPEC §7 sn-lines: over the final live history, every
// S_n — each process's earliest checkpoint numbered ≥ n, or its final
// state — is a consistent cut. MS and BCS promise it of their indexes,
// coordinated checkpointing of its rounds (round r's checkpoints are
// numbered r); PK and FDAS number no checkpoints, HMNR's numbers are no
// BCS index (promises.go).
func snLines(m *history.Model, r *result) {
	g := finalGraph(m, r, snConsistent)
	if g == nil {
		return
	}
	if m.Missing.Sn {
		r.cannotJudge("checkpoints carry no sn")
		return
	}
	orphans, err := g.Graph.SnLines(g.Numbers)
	if err != nil {
		r.cannotJudge("sn-lines: " + err.Error())
		return
	}
	for _, o := range orphans {
		rc := g.Recvs[o.Msg]
		s := m.SendOf[rc]
		msg := g.Graph.Msgs[o.Msg]
		r.fail([]int32{s, rc}, func() (string, string) {
			rng := fmt.Sprintf("S_%d", o.Lo)
			if o.Hi > o.Lo {
				rng = fmt.Sprintf("S_%d … S_%d", o.Lo, o.Hi)
			}
			id := m.MsgName(m.Event(rc).Msg)
			return fmt.Sprintf("%s is an orphan of %s", id, rng),
				fmt.Sprintf("%s sent %s at seq %d after a checkpoint numbered %d, and %s received it at seq %d before any checkpoint numbered above %d (interval %d), so every S_n with %d ≤ n ≤ %d holds the receipt but not the send",
					m.ProcName(msg.From), id, s, o.Hi, m.ProcName(msg.To), rc, o.Lo-1, g.Graph.Interval(msg.To, msg.RecvOp), o.Lo, o.Hi)
		})
	}
}
