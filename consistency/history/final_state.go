package history

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/ckpt-dev/ckpt/consistency/zgraph"
	"github.com/ckpt-dev/ckpt/trace"
)

// finalState derives, from the final live histories, per message its
// live send and first live receipt, the repeated and stale live receipts,
// and (with op and copy numbers) the final checkpoint and message graph.
//
// Every list is in the order of a walk of the processes one after the
// other, each along its live ops: that order is what the reports show.
// The walk itself would read the run's events one process at a time,
// a cache miss per event (10^7 events: 9% of verify's samples), so the
// events are read in seq order instead, and the walk's order rebuilt.
// That is exact because a process's live ops are in seq order: the
// builder appends each op's seq to its process's live list as it reads
// the run in seq order, and an undo only cuts the list's tail.
func (m *Model) finalState() {
	nm := len(m.Run.Msgs)
	m.LiveSend = make([]int32, nm)
	m.LiveRecv = make([]int32, nm)
	for i := range m.LiveSend {
		m.LiveSend[i], m.LiveRecv[i] = None, None
	}
	var g *FinalGraph
	if !m.Missing.Ops && !m.Missing.Copy {
		g = m.newFinalGraph()
	}
	live := m.liveSet()
	var edges finalEdges
	if g != nil {
		edges = newFinalEdges(g, nm)
	}
	for w, word := range live {
		for word != 0 {
			s := int32(w*64 + bits.TrailingZeros64(word))
			word &= word - 1
			e := &m.Run.Events[s]
			if e.Msg < 0 || int(e.Msg) >= nm {
				continue
			}
			switch e.Kind {
			case trace.Send:
				m.liveSend(s, e)
			case trace.Recv:
				if m.liveReceipt(s, e) && g != nil {
					se := &m.Run.Events[m.SendOf[s]]
					edges.add(s, zgraph.Msg{From: se.P, FromInterval: g.interval(se.P, se.Op), To: e.P, ToInterval: g.interval(e.P, e.Op)})
				}
			}
		}
	}
	m.inWalkOrder(m.Repeats)
	m.inWalkOrder(m.Stale)
	if g != nil {
		edges.file(g)
		counts := make([]int32, len(g.Pos))
		for p := range counts {
			counts[p] = int32(len(g.Pos[p]))
		}
		g.Graph, g.Err = zgraph.New(counts, g.Msgs)
		m.Final = g
	}
}

// liveSet is the set of live events at the end, one bit per seq.
func (m *Model) liveSet() []uint64 {
	live := make([]uint64, (len(m.Run.Events)+63)/64)
	for p := range m.Procs {
		for _, s := range m.Procs[p].Live {
			if s != None {
				live[s>>6] |= 1 << (s & 63)
			}
		}
	}
	return live
}

// walkBefore reports whether live event a comes before live event b in
// the walk's order: by process, then (a process's live ops being in seq
// order) by seq.
func (m *Model) walkBefore(a, b int32) bool {
	pa, pb := m.Run.Events[a].P, m.Run.Events[b].P
	return pa < pb || pa == pb && a < b
}

// inWalkOrder sorts live events (few: a valid run has none) into the
// walk's order.
func (m *Model) inWalkOrder(ss []int32) {
	slices.SortFunc(ss, func(a, b int32) int {
		return cmp.Or(cmp.Compare(m.Run.Events[a].P, m.Run.Events[b].P), cmp.Compare(a, b))
	})
}

// liveSend files a send that is live at the end: of two live sends of one
// message (a forged run), the walk keeps the later.
func (m *Model) liveSend(s int32, e *trace.RunEvent) {
	if cur := m.LiveSend[e.Msg]; cur == None || m.walkBefore(cur, s) {
		m.LiveSend[e.Msg] = s
	}
}

// liveReceipt files a receipt that is live at the end, and reports
// whether it is an edge of the final graph: its copy's send is known and
// live.
func (m *Model) liveReceipt(s int32, e *trace.RunEvent) bool {
	switch cur := m.LiveRecv[e.Msg]; {
	case cur == None:
		m.LiveRecv[e.Msg] = s
	case m.walkBefore(cur, s):
		m.Repeats = append(m.Repeats, s)
	default:
		m.Repeats = append(m.Repeats, cur)
		m.LiveRecv[e.Msg] = s
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

// finalEdges gathers the final graph's messages in seq order (the order
// the events are read in, while the sender's event is likely still in the
// cache) and files them in the walk's order.
type finalEdges struct {
	msgs  []zgraph.Msg
	recvs []int32
	per   []int // per receiving process, its edges
}

func newFinalEdges(g *FinalGraph, nm int) finalEdges {
	return finalEdges{msgs: make([]zgraph.Msg, 0, nm), recvs: make([]int32, 0, nm), per: make([]int, len(g.Pos))}
}

func (fe *finalEdges) add(s int32, msg zgraph.Msg) {
	fe.msgs = append(fe.msgs, msg)
	fe.recvs = append(fe.recvs, s)
	fe.per[msg.To]++
}

// file puts the edges in g in the walk's order: grouped by receiving
// process (a counting sort), each group in seq order.
func (fe *finalEdges) file(g *FinalGraph) {
	g.Msgs, g.Recvs = make([]zgraph.Msg, len(fe.msgs)), make([]int32, len(fe.msgs))
	at := 0
	for p, k := range fe.per {
		fe.per[p], at = at, at+k
	}
	for i, msg := range fe.msgs {
		k := fe.per[msg.To]
		fe.per[msg.To]++
		g.Msgs[k], g.Recvs[k] = msg, fe.recvs[i]
	}
}

// newFinalGraph starts the final graph with the held checkpoints: per
// process their numbers and positions.
func (m *Model) newFinalGraph() *FinalGraph {
	np := len(m.Procs)
	g := &FinalGraph{Numbers: make([][]int32, np), Pos: make([][]int32, np)}
	total := 0
	for p := range m.Procs {
		total += len(m.Procs[p].Held)
	}
	all := make([]int32, 2*total)
	for p := range m.Procs {
		pr := &m.Procs[p]
		n := len(pr.Held)
		g.Numbers[p], g.Pos[p], all = all[:n:n], all[n:2*n:2*n], all[2*n:]
		for k := range pr.Held {
			ck := pr.HeldCkpt(k)
			g.Numbers[p][k], g.Pos[p][k] = ck.Sn, ck.Pos
		}
	}
	return g
}

// interval is the index of p's last held checkpoint taken at or before op
// (checkpoint at pos x precedes op x).
func (g *FinalGraph) interval(p, op int32) int32 {
	i, _ := slices.BinarySearch(g.Pos[p], op+1) // the first checkpoint after op
	return int32(i - 1)
}
