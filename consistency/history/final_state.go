package history

import (
	"slices"

	"github.com/ckpt-dev/ckpt/rline"
	"github.com/ckpt-dev/ckpt/trace"
)

// finalState derives, from the final live histories, per message its
// live send and first live receipt, the repeated and stale live receipts,
// and (with op and copy numbers) the final checkpoint and message graph.
// Every list is in the order of a walk of the processes one after the
// other, each along its live ops: the order the reports show.
func (m *Model) finalState() {
	nm := len(m.Run.Msgs)
	m.LiveSend, m.LiveRecv = slices.Repeat([]int32{None}, nm), slices.Repeat([]int32{None}, nm)
	var g *FinalGraph
	var msgs []rline.Msg
	if !m.Missing.Ops && !m.Missing.Copy {
		g = m.newFinalGraph()
		msgs, g.Recvs = make([]rline.Msg, 0, nm), make([]int32, 0, nm)
	}
	for p := range m.Procs {
		for k, s := range m.Procs[p].Live {
			if s == None {
				continue
			}
			// Live op k is as it first ran, unless an op ran as another:
			// its shown kind and message are read in op order, where its
			// event is read at random (5% of verify's CPU).
			kind, msg := m.shownKind[p][k], m.shownMsg[p][k]
			if m.reshown {
				kind, msg = m.Run.Events[s].Kind, m.Run.Events[s].Msg
			}
			switch {
			case msg < 0 || int(msg) >= nm:
			case kind == trace.Send:
				m.LiveSend[msg] = s // of two live sends (a forged run), the later
			case kind == trace.Recv && m.liveReceipt(s, msg) && g != nil:
				se := &m.Run.Events[m.SendOf[s]]
				msgs = append(msgs, rline.Msg{From: se.P, SendOp: se.Op, To: int32(p), RecvOp: int32(k)})
				g.Recvs = append(g.Recvs, s)
			}
		}
	}
	if g != nil {
		g.msgs, m.Final = msgs, g
	}
}

// liveReceipt files a receipt of msg that is live at the end, and reports
// whether it is an edge of the final graph: its copy's send is known and
// live.
func (m *Model) liveReceipt(s, msg int32) bool {
	if m.LiveRecv[msg] == None {
		m.LiveRecv[msg] = s
	} else {
		m.Repeats = append(m.Repeats, s)
	}
	switch snd := m.SendOf[s]; {
	case snd == None:
		return false
	case m.UndoneBy[snd] != None:
		m.Stale = append(m.Stale, s)
		return false
	}
	return true
}

// newFinalGraph starts the final graph with the held checkpoints: per
// process their numbers and positions.
func (m *Model) newFinalGraph() *FinalGraph {
	np := len(m.Procs)
	g := &FinalGraph{Numbers: make([][]int32, np), Pos: make([][]int32, np)}
	for p := range m.Procs {
		pr := &m.Procs[p]
		g.Numbers[p], g.Pos[p] = make([]int32, len(pr.Held)), make([]int32, len(pr.Held))
		for k := range pr.Held {
			ck := pr.HeldCkpt(k)
			g.Numbers[p][k], g.Pos[p][k] = ck.Sn, ck.Pos
		}
	}
	return g
}
