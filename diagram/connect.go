package diagram

import (
	"cmp"
	"slices"
	"sort"

	"github.com/ckpt-dev/ckpt/trace"
)

// connector holds connect's bookkeeping while it walks the run once.
type connector struct {
	m        *model
	ctlQ     map[ctlKey][]int32
	holdFrom []int32
	// restartAt is a PK restart waiting for its token to come back.
	restartAt []int32
	lineOf    map[int32]int // fail event -> index in m.lines
	// pointOf finds a process's point on a line without scanning the
	// line, which may hold a point for each of many processes.
	pointOf map[[2]int]int // (index in m.lines, process) -> index in its points
}

type ctlKey struct {
	from, to, fail int32
	c              trace.Control
}

// connect pairs sends with what became of each copy, control sends with
// their receipts, fails with restarts, rollbacks with restored
// checkpoints, blocked receives with the message they wait for, and
// builds each failure's recovery line. It records each pair's cross-lane
// order in m.dep for the logical layout.
func (m *model) connect() {
	np := len(m.run.Processes)
	c := &connector{
		m:        m,
		ctlQ:     make(map[ctlKey][]int32),
		holdFrom: fill(np, trace.None), restartAt: fill(np, trace.None),
		lineOf: make(map[int32]int), pointOf: make(map[[2]int]int),
	}
	for i := range m.run.Events {
		c.event(int32(i))
	}
	m.downTime()
	// Intervals whose ends are not both drawn are dropped, and so are
	// points on undrawn events.
	cut := func(iv interval) bool { return !m.drawn[iv.from] || !m.drawn[iv.to] }
	m.down, m.holds = slices.DeleteFunc(m.down, cut), slices.DeleteFunc(m.holds, cut)
	for li := range m.lines {
		pts := m.lines[li].points
		sort.SliceStable(pts, func(a, b int) bool { return pts[a].p < pts[b].p })
		m.lines[li].points = slices.DeleteFunc(pts, func(q linePoint) bool { return q.ev != trace.None && !m.drawn[q.ev] })
	}
}

func (c *connector) event(idx int32) {
	m := c.m
	e := &m.run.Events[idx]
	switch e.Kind {
	case trace.Recv, trace.Discard, trace.Unconsumed:
		c.message(idx, e)
	case trace.ControlSend:
		if e.Peer >= 0 && int(e.Peer) < len(m.run.Processes) {
			k := ctlKey{e.P, e.Peer, e.Failure, e.Control}
			c.ctlQ[k] = append(c.ctlQ[k], idx)
		}
	case trace.ControlRecv:
		k := ctlKey{e.Peer, e.P, e.Failure, e.Control}
		if q := c.ctlQ[k]; len(q) > 0 {
			c.ctlQ[k] = q[1:]
			if m.drawn[q[0]] && m.drawn[idx] {
				m.ctl = append(m.ctl, ctlArrow{from: q[0], to: idx})
				m.dep[idx] = q[0]
			}
		}
		c.point(e.Failure, linePoint{p: e.P, ev: idx, kept: true}, false)
	case trace.Restart, trace.Rollback:
		c.restore(idx, e)
	case trace.Checkpoint:
		if e.CkptType == trace.CkptRecovery {
			c.point(e.Failure, linePoint{p: e.P, ev: idx}, true)
		}
	case trace.Resume:
		if c.restartAt[e.P] != trace.None {
			m.holds = append(m.holds, interval{p: e.P, from: c.restartAt[e.P], to: idx})
			c.restartAt[e.P] = trace.None
		}
	case trace.Hold:
		if c.holdFrom[e.P] == trace.None {
			c.holdFrom[e.P] = idx
		}
	case trace.Unhold:
		c.closeHold(e.P, idx)
	case trace.End:
		c.end(idx, e)
	}
}

// message draws the copy that recv, discard or unconsumed event idx
// consumed, in the style of its fate.
func (c *connector) message(idx int32, e *trace.RunEvent) {
	m := c.m
	ev := m.run.Events
	if e.Copy <= 0 {
		return
	}
	s := m.sendOf(e.Msg, e.Copy, idx)
	if s == trace.None {
		return
	}
	a := arrow{from: s, to: idx, style: styleNormal, undone: m.undone(s) || m.undone(idx), msg: e.Msg}
	switch {
	case e.Kind == trace.Discard && e.Reason == trace.ReasonOrphan:
		a.style = styleOrphan
	case e.Kind == trace.Discard:
		a.style = styleDiscarded
	case e.Kind == trace.Unconsumed:
		a.style = styleLost
	case m.orphanReceipt(s, idx):
		// Received, then its send was undone: an orphan, whether the
		// receiver rolled it back (faded) or not (a violation).
		a.style = styleOrphan
	case e.Via == trace.ViaLog:
		a.style = styleReplayed
	case ev[s].Resend:
		a.style = styleResent
	}
	if !m.drawn[s] || !m.drawn[idx] {
		if m.drawn[s] || m.drawn[idx] {
			m.hidden++
		}
		return
	}
	m.arrows = append(m.arrows, a)
	m.dep[idx] = s
}

// restore handles a restart or rollback: the jump back to the restored
// checkpoint, and the process's point on the recovery line.
func (c *connector) restore(idx int32, e *trace.RunEvent) {
	m := c.m
	if e.Kind == trace.Restart {
		// PK holds a restarted process until its token returns.
		c.restartAt[e.P] = idx
	}
	ck, ok := m.restored(idx)
	if !ok {
		return
	}
	if m.drawn[idx] {
		m.jumps = append(m.jumps, jump{ev: idx, ckpt: ck})
	}
	// A restart is the failed process's own point: it replaces the kept
	// point a control receipt recorded just before.
	c.point(e.Failure, linePoint{p: e.P, ev: ck}, true)
}

// end closes an open hold and records a receive blocked forever as a
// lost message, drawn from the latest send of its message if any.
func (c *connector) end(idx int32, e *trace.RunEvent) {
	m := c.m
	c.closeHold(e.P, idx)
	if e.State != trace.StateBlocked || !m.drawn[idx] {
		return
	}
	a := arrow{from: trace.None, to: idx, style: styleLost, msg: e.Msg}
	if s := m.sendOf(e.Msg, 0, idx); s != trace.None && m.drawn[s] {
		a.from, a.undone = s, m.undone(s)
		m.dep[idx] = s
	}
	m.lost = append(m.lost, a)
}

func (c *connector) closeHold(p, idx int32) {
	if c.holdFrom[p] != trace.None {
		c.m.holds = append(c.m.holds, interval{p: p, from: c.holdFrom[p], to: idx})
		c.holdFrom[p] = trace.None
	}
}

// point records a process's point on failure fail's recovery line (none
// when fail names no fail event): its first, or — replace — one over
// the "kept" point a control receipt at the same process recorded just
// before a rollback, restart or recovery checkpoint.
func (c *connector) point(fail int32, pt linePoint, replace bool) {
	m := c.m
	li, ok := c.lineOf[fail]
	if !ok {
		if fail < 0 || int(fail) >= m.n || m.run.Events[fail].Kind != trace.Fail {
			return
		}
		li = len(m.lines)
		c.lineOf[fail] = li
		m.lines = append(m.lines, rline{fail: fail})
	}
	pts := m.lines[li].points
	k := [2]int{li, int(pt.p)}
	if j, ok := c.pointOf[k]; ok {
		if replace && pts[j].kept {
			pts[j] = pt
		}
		return
	}
	c.pointOf[k] = len(pts)
	m.lines[li].points = append(pts, pt)
}

// downTime is each failure the history model counts, from its fail event
// to its restart or, without one, its process's end: in the order they
// end.
func (m *model) downTime() {
	for _, f := range m.h.Model().Failures {
		to := f.Restart
		if to == trace.None {
			to = m.h.Ended(f.P)
		}
		if to != trace.None {
			m.down = append(m.down, interval{p: f.P, from: f.Seq, to: to})
		}
	}
	slices.SortFunc(m.down, func(a, b interval) int { return cmp.Compare(a.to, b.to) })
}
