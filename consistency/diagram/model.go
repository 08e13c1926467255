// Package diagram draws a run as a space-time diagram (issue 9): one lane
// per process, time to the right, messages as arrows, checkpoints,
// failures, rollbacks and recovery lines, with the checker's violations
// highlighted. It writes a standalone SVG or a self-contained HTML page
// (the same SVG inline, plus hover details, zoom/pan and a clickable
// violation list), using only the standard library and embedded assets.
//
// Output is deterministic: the same run and report give the same bytes.
package diagram

import (
	"fmt"
	"sort"

	"github.com/ckpt-dev/ckpt/consistency/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// Defaults of Options.
const (
	// DefaultMaxEvents is the run size above which the diagram windows:
	// past a few thousand marks an SVG is neither readable nor quick to
	// render in a browser.
	DefaultMaxEvents = 3000
	// DefaultAround is how many events are kept either side of each
	// failure's recovery when windowing.
	DefaultAround = 60
)

// Options tune a diagram. The zero value is ready to use.
type Options struct {
	// MaxEvents is the largest run drawn whole; a larger run is windowed.
	// 0 means DefaultMaxEvents.
	MaxEvents int
	// Head is how many events from the start a windowed diagram keeps;
	// 0 means MaxEvents/2.
	Head int
	// Around is how many events a windowed diagram keeps either side of
	// each failure's recovery; 0 means DefaultAround.
	Around int
}

func (o Options) withDefaults() Options {
	if o.MaxEvents <= 0 {
		o.MaxEvents = DefaultMaxEvents
	}
	if o.Head <= 0 {
		o.Head = o.MaxEvents / 2
	}
	if o.Around <= 0 {
		o.Around = DefaultAround
	}
	return o
}

// Message styles: how a copy ended. Each has its own colour, dash and
// legend entry; the names are the CSS classes msg-<name>.
const (
	styleNormal    = "normal"    // delivered from the network
	styleOrphan    = "orphan"    // discarded as an orphan (PK)
	styleLost      = "lost"      // never consumed (unconsumed at the end)
	styleDiscarded = "discarded" // discarded as stale or duplicate
	styleReplayed  = "replayed"  // delivered again from the message log
	styleResent    = "resent"    // a re-transmission (PK resend)
)

// arrow is one message copy from its send to the event that consumed,
// discarded or left it.
type arrow struct {
	from, to int32
	style    string
	undone   bool
}

// ctlArrow is one control message (MS Rollback request, PK token).
type ctlArrow struct{ from, to int32 }

// interval is a span of one lane between two events (down time, holds).
type interval struct {
	p        int32
	from, to int32
	fail     int32 // the fail event of a down interval
}

// jump is a rollback or restart going back to the restored checkpoint.
type jump struct {
	ev   int32 // restart or rollback event
	ckpt int32 // checkpoint event, or None for the initial checkpoint
}

// linePoint is one process's place on a recovery line: a checkpoint
// event, the initial checkpoint (ev None), or — when the process neither
// rolled back nor took a recovery checkpoint — where it handled the
// failure (kept true).
type linePoint struct {
	p    int32
	ev   int32
	kept bool
}

// rline is the recovery line of one failure.
type rline struct {
	fail   int32
	points []linePoint
}

// band is a stretch of time whose events a windowed diagram leaves out.
type band struct {
	x0, x1  float64
	omitted int
	t0, t1  trace.Time
}

// model is everything the writers draw, computed once from the run.
type model struct {
	run *trace.Run
	rep *report.Report

	n      int
	drawn  []bool
	undone []bool
	// discarded marks checkpoints a later restore threw away.
	discarded []bool
	// logged is the index of the log event of a recv, or None.
	logged []int32
	x      []float64
	// slot is the rank of an event among its lane's marks at its time.
	width float64

	arrows    []arrow
	ctl       []ctlArrow
	down      []interval
	holds     []interval
	jumps     []jump
	lines     []rline
	bands     []band
	blocked   []int32 // end events blocked on a message (lost receives)
	violSeqs  [][]int32
	violOf    []report.Violation
	hidden    int // arrows with an end outside the window
	windowed  bool
	failures  int
	failShown int
	ticks     []tick
}

type tick struct {
	x float64
	t trace.Time
}

// Layout constants, in SVG user units (px).
const (
	marginLeft = 70.0
	marginTop  = 176.0
	laneGap    = 78.0
	tieGap     = 14.0
	minGap     = 18.0
	maxGap     = 240.0
	bandGap    = 70.0
	rightPad   = 40.0
)

// build checks run enough never to index out of range and computes the
// model. rep may be nil.
func build(run *trace.Run, rep *report.Report, opts Options) (*model, error) {
	opts = opts.withDefaults()
	if run == nil {
		return nil, fmt.Errorf("diagram: no run")
	}
	if len(run.Processes) == 0 {
		return nil, fmt.Errorf("%s: run has no processes", run.Name)
	}
	np := int32(len(run.Processes))
	n := len(run.Events)
	for i := range run.Events {
		e := &run.Events[i]
		if e.P < 0 || e.P >= np {
			return nil, fmt.Errorf("%s: event %d: process index %d out of range", run.Name, i, e.P)
		}
		if i > 0 && e.T < run.Events[i-1].T {
			return nil, fmt.Errorf("%s: event %d: t %s is before the previous event's t %s", run.Name, i, e.T, run.Events[i-1].T)
		}
	}
	m := &model{
		run: run, rep: rep, n: n,
		drawn:     make([]bool, n),
		undone:    make([]bool, n),
		discarded: make([]bool, n),
		logged:    make([]int32, n),
		x:         make([]float64, n),
	}
	for i := range m.logged {
		m.logged[i] = trace.None
	}
	ckptOf := m.history()
	m.window(opts, ckptOf)
	m.layout()
	m.connect(ckptOf)
	m.violations()
	return m, nil
}

func ckptKey(p, id int32) uint64 { return uint64(uint32(p))<<32 | uint64(uint32(id)) }

// history replays the run's restarts and rollbacks over each lane to mark
// undone ops and thrown-away checkpoints, and returns the checkpoint
// events by (process, id).
func (m *model) history() map[uint64]int32 {
	run := m.run
	np := len(run.Processes)
	// live[p] holds p's live ops in order (resends excluded: they repeat
	// an op rather than add one), so a restore to pos pops to length pos.
	live := make([][]int32, np)
	ckpts := make([][]int32, np)
	ckptOf := make(map[uint64]int32)
	// resendOf links a resend to the live send it repeats, so it fades
	// when that send is undone.
	var resends [][2]int32
	lastRecv := make(map[uint64]int32)
	for i := range run.Events {
		e := &run.Events[i]
		idx := int32(i)
		switch e.Kind {
		case trace.Send, trace.Recv, trace.Internal:
			if e.Kind == trace.Send && e.Resend {
				if e.Op >= 0 && int(e.Op) < len(live[e.P]) {
					resends = append(resends, [2]int32{idx, live[e.P][e.Op]})
				}
				continue
			}
			live[e.P] = append(live[e.P], idx)
			if e.Kind == trace.Recv {
				lastRecv[copyKey(e.Msg, e.Copy)] = idx
			}
		case trace.Checkpoint:
			if e.Ckpt >= 0 {
				ckptOf[ckptKey(e.P, e.Ckpt)] = idx
			}
			ckpts[e.P] = append(ckpts[e.P], idx)
		case trace.Restart, trace.Rollback:
			if e.Pos >= 0 {
				l := live[e.P]
				for len(l) > int(e.Pos) {
					m.undone[l[len(l)-1]] = true
					l = l[:len(l)-1]
				}
				live[e.P] = l
			}
			if e.Restore >= 0 {
				c := ckpts[e.P]
				for len(c) > 0 && run.Events[c[len(c)-1]].Ckpt > e.Restore {
					m.discarded[c[len(c)-1]] = true
					c = c[:len(c)-1]
				}
				ckpts[e.P] = c
			}
		case trace.Log:
			m.noteLog(idx, lastRecv)
		}
	}
	for _, r := range resends {
		m.undone[r[0]] = m.undone[r[1]]
	}
	return ckptOf
}

// noteLog ties log event idx to the receipt it records: MS logs just
// before the recv, PK makes entries stable after it (at a flush), when
// lastRecv names the latest receipt of each copy.
func (m *model) noteLog(idx int32, lastRecv map[uint64]int32) {
	ev := m.run.Events
	l := &ev[idx]
	if j := int(idx) + 1; j < len(ev) {
		r := &ev[j]
		if r.Kind == trace.Recv && r.P == l.P && r.Msg == l.Msg && r.Copy == l.Copy {
			m.logged[j] = idx
			return
		}
	}
	if j, ok := lastRecv[copyKey(l.Msg, l.Copy)]; ok && ev[j].P == l.P && m.logged[j] == trace.None {
		m.logged[j] = idx
	}
}

func copyKey(msg, cp int32) uint64 { return uint64(uint32(msg))<<32 | uint64(uint32(cp)) }

// window chooses the events to draw: all of them for a small run, else
// the first Head events and Around events either side of each failure's
// recovery, as many failures as MaxEvents allows, plus every checkpoint a
// drawn rollback restores.
func (m *model) window(opts Options, ckptOf map[uint64]int32) {
	ev := m.run.Events
	for i := range ev {
		if ev[i].Kind == trace.Fail {
			m.failures++
		}
	}
	if m.n <= opts.MaxEvents {
		for i := range m.drawn {
			m.drawn[i] = true
		}
		m.failShown = m.failures
		return
	}
	m.windowed = true
	budget := opts.MaxEvents
	// Share the budget between the start and the failures: many failures
	// get a shorter start and tighter surroundings rather than being
	// dropped.
	head, around := opts.Head, opts.Around
	if m.failures > 0 {
		head = min(head, max(budget/(m.failures+1), budget/10))
		around = min(around, max((budget-head)/(m.failures*4), 8))
	}
	mark := func(lo, hi int) int {
		lo, hi = max(lo, 0), min(hi, m.n)
		c := 0
		for i := lo; i < hi; i++ {
			if !m.drawn[i] {
				m.drawn[i] = true
				c++
			}
		}
		return c
	}
	budget -= mark(0, min(head, budget))
	// The last event answering each failure bounds its recovery.
	last := make(map[int32]int32)
	for i := range ev {
		if f := ev[i].Failure; f >= 0 {
			last[f] = int32(i)
		}
	}
	for i := range ev {
		if ev[i].Kind != trace.Fail {
			continue
		}
		end := i
		if l, ok := last[int32(i)]; ok {
			end = int(l)
		}
		// A recovery that drags on is cut: the budget is for many
		// failures, not one.
		end = min(end, i+4*around)
		lo, hi := i-around, end+around+1
		need := 0
		for j := max(lo, 0); j < min(hi, m.n); j++ {
			if !m.drawn[j] {
				need++
			}
		}
		if need > budget {
			continue
		}
		budget -= mark(lo, hi)
		m.failShown++
	}
	for i := range ev {
		e := &ev[i]
		if m.drawn[i] && (e.Kind == trace.Restart || e.Kind == trace.Rollback) && e.Restore > 0 {
			if c, ok := ckptOf[ckptKey(e.P, e.Restore)]; ok {
				m.drawn[c] = true
			}
		}
	}
}

// slotted reports whether an event gets a mark of its own on its lane.
// The others (log, control messages, unhold) are drawn at, or attached
// to, the mark before them.
func slotted(k trace.Kind) bool {
	switch k {
	case trace.Log, trace.ControlSend, trace.ControlRecv, trace.Unhold:
		return false
	}
	return true
}

// layout gives every drawn event its x. Time runs to the right but not
// linearly: each distinct time is a column as wide as its busiest lane
// needs (ties stay in seq order), and gaps are clamped so long idle
// stretches and dense bursts both stay readable. Left-out stretches of a
// windowed run become fixed-width bands.
func (m *model) layout() {
	ev := m.run.Events
	np := len(m.run.Processes)
	var span trace.Time
	if m.n > 0 {
		span = ev[m.n-1].T
	}
	pxPerSec := 120.0
	if s := span.Seconds(); s > 0 {
		pxPerSec = min(max(1200/s, 30), 400)
	}
	lastGroup := make([]int32, np)
	count := make([]int32, np)
	for i := range lastGroup {
		lastGroup[i] = -1
	}
	x := marginLeft
	var group int32 = -1
	var groupT trace.Time
	var groupStart float64
	var groupWidth float64
	omitted := 0
	var omitT0 trace.Time
	m.ticks = append(m.ticks, tick{x: marginLeft, t: 0})
	started := false
	for i := range ev {
		e := &ev[i]
		if !m.drawn[i] {
			if omitted == 0 {
				omitT0 = e.T
			}
			omitted++
			continue
		}
		if !started || e.T != groupT || omitted > 0 {
			// Close the previous column and open one at e.T.
			prevEnd := groupStart + groupWidth
			if !started {
				prevEnd = marginLeft
				if e.T > 0 {
					x = prevEnd + gapFor(e.T.Seconds()*pxPerSec)
				} else {
					x = prevEnd
				}
				if omitted > 0 {
					x = prevEnd + bandGap
				}
			} else if omitted > 0 {
				x = prevEnd + bandGap
			} else {
				x = prevEnd + gapFor((e.T-groupT).Seconds()*pxPerSec)
			}
			if omitted > 0 {
				m.bands = append(m.bands, band{x0: prevEnd + 12, x1: x - 12, omitted: omitted, t0: omitT0, t1: e.T})
				omitted = 0
			}
			started = true
			group++
			groupT, groupStart, groupWidth = e.T, x, 0
			m.ticks = append(m.ticks, tick{x: x, t: e.T})
		}
		p := e.P
		if lastGroup[p] != group {
			lastGroup[p], count[p] = group, 0
		}
		// An unslotted event sits on the mark before it on its lane.
		rank := max(count[p]-1, 0)
		if slotted(e.Kind) {
			rank = count[p]
			count[p]++
		}
		m.x[i] = groupStart + float64(rank)*tieGap
		groupWidth = max(groupWidth, float64(rank)*tieGap)
	}
	end := groupStart + groupWidth
	if !started {
		end = marginLeft
	}
	if omitted > 0 {
		m.bands = append(m.bands, band{x0: end + 12, x1: end + bandGap - 12, omitted: omitted, t0: omitT0, t1: ev[m.n-1].T})
		end += bandGap
	}
	m.width = end + rightPad + 60
}

func gapFor(px float64) float64 { return min(max(px, minGap), maxGap) }

func (m *model) laneY(p int32) float64 { return marginTop + float64(p)*laneGap }

// height is where the lanes end; the violation list goes below.
func (m *model) lanesBottom() float64 {
	return m.laneY(int32(len(m.run.Processes)-1)) + laneGap/2
}

// connect pairs sends with what became of each copy, control sends with
// their receipts, fails with restarts, rollbacks with restored
// checkpoints, and builds each failure's recovery line.
func (m *model) connect(ckptOf map[uint64]int32) {
	ev := m.run.Events
	np := int32(len(m.run.Processes))
	sends := make(map[uint64]int32)
	type ctlKey struct {
		from, to, fail int32
		c              trace.Control
	}
	ctlQ := make(map[ctlKey][]int32)
	downFrom := make([]int32, np)
	holdFrom := make([]int32, np)
	restartAt := make([]int32, np)
	for i := range downFrom {
		downFrom[i], holdFrom[i], restartAt[i] = trace.None, trace.None, trace.None
	}
	lineOf := make(map[int32]int) // fail event -> index in m.lines
	addPoint := func(fail int32, pt linePoint) {
		li, ok := lineOf[fail]
		if !ok {
			if fail < 0 || int(fail) >= m.n || ev[fail].Kind != trace.Fail {
				return
			}
			li = len(m.lines)
			lineOf[fail] = li
			m.lines = append(m.lines, rline{fail: fail})
		}
		l := &m.lines[li]
		for _, q := range l.points {
			if q.p == pt.p {
				return
			}
		}
		l.points = append(l.points, pt)
	}
	for i := range ev {
		e := &ev[i]
		idx := int32(i)
		switch e.Kind {
		case trace.Send:
			if e.Msg >= 0 && e.Copy > 0 {
				sends[copyKey(e.Msg, e.Copy)] = idx
			}
		case trace.Recv, trace.Discard, trace.Unconsumed:
			s, ok := sends[copyKey(e.Msg, e.Copy)]
			if !ok {
				continue
			}
			a := arrow{from: s, to: idx, style: styleNormal, undone: m.undone[s] || m.undone[idx]}
			switch {
			case e.Kind == trace.Discard && e.Reason == trace.ReasonOrphan:
				a.style = styleOrphan
			case e.Kind == trace.Discard:
				a.style = styleDiscarded
			case e.Kind == trace.Unconsumed:
				a.style = styleLost
			case e.Via == trace.ViaLog:
				a.style = styleReplayed
			case ev[s].Resend:
				a.style = styleResent
			}
			if !m.drawn[s] || !m.drawn[idx] {
				if m.drawn[s] || m.drawn[idx] {
					m.hidden++
				}
				continue
			}
			m.arrows = append(m.arrows, a)
		case trace.ControlSend:
			if e.Peer >= 0 && e.Peer < np {
				k := ctlKey{e.P, e.Peer, e.Failure, e.Control}
				ctlQ[k] = append(ctlQ[k], idx)
			}
		case trace.ControlRecv:
			k := ctlKey{e.Peer, e.P, e.Failure, e.Control}
			if q := ctlQ[k]; len(q) > 0 {
				ctlQ[k] = q[1:]
				if m.drawn[q[0]] && m.drawn[idx] {
					m.ctl = append(m.ctl, ctlArrow{from: q[0], to: idx})
				}
			}
			if e.Failure >= 0 {
				addPoint(e.Failure, linePoint{p: e.P, ev: idx, kept: true})
			}
		case trace.Fail:
			if downFrom[e.P] == trace.None {
				downFrom[e.P] = idx
			}
		case trace.Restart, trace.Rollback:
			if e.Kind == trace.Restart {
				// PK holds a restarted process until its token returns.
				restartAt[e.P] = idx
			}
			if e.Kind == trace.Restart && downFrom[e.P] != trace.None {
				m.down = append(m.down, interval{p: e.P, from: downFrom[e.P], to: idx, fail: downFrom[e.P]})
				downFrom[e.P] = trace.None
			}
			c := int32(trace.None)
			if e.Restore > 0 {
				if ci, ok := ckptOf[ckptKey(e.P, e.Restore)]; ok {
					c = ci
				}
			}
			if m.drawn[idx] && (e.Restore == 0 || c != trace.None) {
				m.jumps = append(m.jumps, jump{ev: idx, ckpt: c})
			}
			if e.Failure >= 0 && (e.Restore == 0 || c != trace.None) {
				// A restart is the failed process's own point: put it
				// before the kept points of processes that only heard.
				m.replacePoint(lineOf, addPoint, e.Failure, linePoint{p: e.P, ev: c})
			}
		case trace.Checkpoint:
			if e.CkptType == trace.CkptRecovery && e.Failure >= 0 {
				m.replacePoint(lineOf, addPoint, e.Failure, linePoint{p: e.P, ev: idx})
			}
		case trace.Resume:
			if restartAt[e.P] != trace.None {
				m.holds = append(m.holds, interval{p: e.P, from: restartAt[e.P], to: idx})
				restartAt[e.P] = trace.None
			}
		case trace.Hold:
			if holdFrom[e.P] == trace.None {
				holdFrom[e.P] = idx
			}
		case trace.Unhold:
			if holdFrom[e.P] != trace.None {
				m.holds = append(m.holds, interval{p: e.P, from: holdFrom[e.P], to: idx})
				holdFrom[e.P] = trace.None
			}
		case trace.End:
			if downFrom[e.P] != trace.None {
				m.down = append(m.down, interval{p: e.P, from: downFrom[e.P], to: idx, fail: downFrom[e.P]})
				downFrom[e.P] = trace.None
			}
			if holdFrom[e.P] != trace.None {
				m.holds = append(m.holds, interval{p: e.P, from: holdFrom[e.P], to: idx})
				holdFrom[e.P] = trace.None
			}
			if e.State == trace.StateBlocked && m.drawn[i] {
				m.blocked = append(m.blocked, idx)
			}
		}
	}
	// Intervals whose ends are both hidden are dropped; one hidden end is
	// clamped to the window by drawing from the visible one only.
	m.down = keepDrawn(m.down, m.drawn)
	m.holds = keepDrawn(m.holds, m.drawn)
	for li := range m.lines {
		pts := m.lines[li].points
		sort.SliceStable(pts, func(a, b int) bool { return pts[a].p < pts[b].p })
		kept := pts[:0]
		for _, q := range pts {
			if q.ev == trace.None || m.drawn[q.ev] {
				kept = append(kept, q)
			}
		}
		m.lines[li].points = kept
	}
}

// replacePoint records a rollback's or recovery checkpoint's point on a
// failure's line, replacing the "kept" point a control receipt at the same
// process recorded just before it.
func (m *model) replacePoint(lineOf map[int32]int, add func(int32, linePoint), fail int32, pt linePoint) {
	if li, ok := lineOf[fail]; ok {
		pts := m.lines[li].points
		for j := range pts {
			if pts[j].p == pt.p {
				if pts[j].kept {
					pts[j] = pt
				}
				return
			}
		}
	}
	add(fail, pt)
}

func keepDrawn(in []interval, drawn []bool) []interval {
	out := in[:0]
	for _, iv := range in {
		if drawn[iv.from] && drawn[iv.to] {
			out = append(out, iv)
		}
	}
	return out
}

// violations collects the report's failed properties' witnesses in report
// order, keeping the seqs that name drawn events.
func (m *model) violations() {
	if m.rep == nil {
		return
	}
	for _, p := range m.rep.Properties {
		for _, v := range p.Violations {
			var seqs []int32
			for _, s := range v.Seqs {
				if s >= 0 && int(s) < m.n && m.drawn[s] {
					seqs = append(seqs, s)
				}
			}
			m.violOf = append(m.violOf, v)
			m.violSeqs = append(m.violSeqs, seqs)
		}
	}
}
