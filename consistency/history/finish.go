package history

import (
	"sort"

	"github.com/ckpt-dev/ckpt/consistency/zgraph"
	"github.com/ckpt-dev/ckpt/trace"
)

// Finish freezes the model: it completes the handling points, and
// derives the final-state facts (processes' final state, programs, live
// sends and receives, the final checkpoint and message graph). The
// builder must not be used afterwards.
func (b *Builder) Finish() *Model {
	m := b.m
	b.finishWellFormed()
	if m.Missing.Ops {
		// Without op numbers the live counts are unknown: what was
		// compared with them says nothing.
		for _, k := range []Kind{BrokenContinuity, CkptPos, PosBeyondLive, UndoneCount, OpWhileDown} {
			m.anomalies[k] = anomalyList{}
		}
	}
	// A process that answered a failure only by receiving its control
	// message (nothing to roll back) handled it at that arrival. With
	// unattributed rollbacks, an arrival may be followed by the
	// (unnamed) rollback that handles it: only the explicitly
	// attributed handling points are judged then.
	if !m.Missing.Failure {
		for _, k := range b.candOrder {
			if !b.handled[k] {
				m.Handlings = append(m.Handlings, b.candidates[k])
			}
		}
	}
	sort.SliceStable(m.Handlings, func(i, j int) bool {
		hi, hj := m.Handlings[i], m.Handlings[j]
		return hi.Seq < hj.Seq || hi.Seq == hj.Seq && hi.F < hj.F
	})
	m.Procs = make([]Proc, len(b.procs))
	for p := range b.procs {
		ps := &b.procs[p]
		m.Procs[p] = Proc{Live: ps.live, Ckpts: ps.ckpts, ByID: ps.byID, Taken: ps.taken, End: ps.end}
	}
	m.srcMsg = b.srcMsgs()
	m.Program = b.program()
	m.liveEnds()
	if !m.Missing.Ops && !m.Missing.Copy {
		m.Final = m.finalGraph()
		if n := len(m.Failures); n > 0 && n <= BatchSize {
			m.dep = m.dependence(0)
		}
	}
	b.m = nil
	return m
}

// srcMsgs maps the source trace's message indexes to the run's: the
// identity for a run fresh from replay (it shares the trace's table),
// else by id; nil without a comparable source.
func (b *Builder) srcMsgs() []int32 {
	m := b.m
	if m.Src == nil || len(m.Src.Processes) != len(m.Run.Processes) {
		return nil
	}
	r, s := m.Run.Msgs, m.Src.Msgs
	out := make([]int32, len(s))
	if len(r) == len(s) && (len(r) == 0 || &r[0] == &s[0]) {
		for i := range out {
			out[i] = int32(i)
		}
		return out
	}
	index := make(map[string]int32, len(r))
	for i, id := range r {
		index[id] = int32(i)
	}
	for i, id := range s {
		out[i] = None
		if j, ok := index[id]; ok {
			out[i] = j
		}
	}
	return out
}

// program returns every process's program: from the source trace when
// there is one, else as the run shows it (SPEC §7). All processes share
// one backing array sized by a first counting pass.
func (b *Builder) program() [][]ProgOp {
	m := b.m
	np := len(b.procs)
	out := make([][]ProgOp, np)
	if m.srcMsg == nil {
		for p := range out {
			ps := &b.procs[p]
			ops := make([]ProgOp, len(ps.progKind))
			for k := range ops {
				ops[k] = ProgOp{Kind: ps.progKind[k], Msg: ps.progMsg[k]}
			}
			out[p] = ops
		}
		return out
	}
	counts := make([]int, np)
	total := 0
	for i := range m.Src.Events {
		if te := &m.Src.Events[i]; te.Kind.IsOp() && te.P >= 0 && int(te.P) < np {
			counts[te.P]++
			total++
		}
	}
	all := make([]ProgOp, total)
	off := 0
	for p := range out {
		out[p] = all[off : off : off+counts[p]]
		off += counts[p]
	}
	for i := range m.Src.Events {
		te := &m.Src.Events[i]
		if te.Kind.IsOp() && te.P >= 0 && int(te.P) < np {
			msg := None
			if te.Msg >= 0 && int(te.Msg) < len(m.srcMsg) {
				msg = m.srcMsg[te.Msg]
			}
			out[te.P] = append(out[te.P], ProgOp{Kind: te.Kind, Msg: msg})
		}
	}
	return out
}

// SrcSender returns the process that sends message m in the source
// trace, or None.
func (m *Model) SrcSender(msg int32) int32 {
	if msg < 0 || int(msg) >= len(m.srcSender) {
		return None
	}
	return m.srcSender[msg]
}

// liveEnds finds, per message, its live send and first live receive at
// the end, and the live receipts of a message received before.
func (m *Model) liveEnds() {
	nm := len(m.Run.Msgs)
	m.LiveSend = make([]int32, nm)
	m.LiveRecv = make([]int32, nm)
	for i := range m.LiveSend {
		m.LiveSend[i], m.LiveRecv[i] = None, None
	}
	for p := range m.Procs {
		for _, s := range m.Procs[p].Live {
			if s == None {
				continue
			}
			e := &m.Run.Events[s]
			if e.Msg < 0 || int(e.Msg) >= nm {
				continue
			}
			switch e.Kind {
			case trace.Send:
				m.LiveSend[e.Msg] = s
			case trace.Recv:
				if m.LiveRecv[e.Msg] == None {
					m.LiveRecv[e.Msg] = s
				} else {
					m.Repeats = append(m.Repeats, s)
				}
			}
		}
	}
	if m.srcMsg != nil {
		m.srcSender = make([]int32, nm)
		for i := range m.srcSender {
			m.srcSender[i] = None
		}
		for sm, msg := range m.Src.Messages {
			rm := m.srcMsg[sm]
			if rm != None && int(rm) < nm && msg.Send >= 0 && int(msg.Send) < len(m.Src.Events) {
				m.srcSender[rm] = m.Src.Events[msg.Send].P
			}
		}
	}
}

// finalGraph builds the checkpoint and message graph of the final live
// history: held checkpoints per process, and the messages with both ends
// live, each placed in the checkpoint interval of its send and receive.
func (m *Model) finalGraph() *FinalGraph {
	np := len(m.Procs)
	g := &FinalGraph{Counts: make([]int32, np), Numbers: make([][]int32, np)}
	pos := make([][]int32, np)
	nr := 0
	for p := range m.Procs {
		ck := m.Procs[p].Ckpts
		g.Counts[p] = int32(len(ck))
		g.Numbers[p] = make([]int32, len(ck))
		pos[p] = make([]int32, len(ck))
		for k := range ck {
			g.Numbers[p][k], pos[p][k] = ck[k].Sn, ck[k].Pos
		}
		for _, s := range m.Procs[p].Live {
			if s != None && m.Run.Events[s].Kind == trace.Recv {
				nr++
			}
		}
	}
	// interval is the last checkpoint taken at or before op (checkpoint
	// at pos x precedes op x).
	interval := func(p, op int32) int32 {
		ps := pos[p]
		return int32(sort.Search(len(ps), func(i int) bool { return ps[i] > op }) - 1)
	}
	g.Msgs = make([]zgraph.Msg, 0, nr)
	g.Recvs = make([]int32, 0, nr)
	for p := range m.Procs {
		for _, s := range m.Procs[p].Live {
			if s == None || m.Run.Events[s].Kind != trace.Recv {
				continue
			}
			snd := m.SendOf[s]
			if snd == None || m.UndoneBy[snd] != None {
				continue
			}
			se, re := &m.Run.Events[snd], &m.Run.Events[s]
			g.Msgs = append(g.Msgs, zgraph.Msg{From: se.P, FromInterval: interval(se.P, se.Op), To: re.P, ToInterval: interval(re.P, re.Op)})
			g.Recvs = append(g.Recvs, s)
		}
	}
	g.Graph, g.Err = zgraph.New(g.Counts, g.Msgs)
	return g
}
