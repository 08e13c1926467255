package diagram

import (
	"math"
	"strconv"
	"strings"

	"github.com/ckpt-dev/ckpt/trace"
)

// marks draws one mark per drawn slotted event, plus the implicit initial
// checkpoints at column 0 (right of the lane names, never on them).
func (m *model) marks(x *xw) {
	run := m.run
	x.raw(`<g class="events">`)
	explicit := m.explicitInitial()
	for p := range run.Processes {
		if explicit[p] {
			continue
		}
		y := m.laneY(int32(p))
		x.raw(`<rect class="ckpt ckpt-initial"`)
		x.attr("data-p", run.Processes[p])
		x.num("x", m.geo.left-4)
		x.num("y", y-8)
		x.raw(` width="8" height="16"><title>`)
		x.esc(m.initialText(int32(p)))
		x.raw("</title></rect>")
	}
	for i := range run.Events {
		if m.drawn[i] && slotted(run.Events[i].Kind) {
			m.mark(x, int32(i), &run.Events[i])
		}
	}
	for _, a := range m.lost {
		e := &run.Events[a.to]
		cx, y := m.x[a.to], m.laneY(e.P)
		x.raw(`<path class="lost-mark"`)
		x.int("data-seq", int(a.to))
		x.raw(` d="M`)
		x.f(cx - 8)
		x.raw(" ")
		x.f(y - 8)
		x.raw(" l16 16 m0 -16 l-16 16")
		x.raw(`"><title>`)
		x.escBytes(m.arrowText(a))
		x.raw("</title></path>")
	}
	x.raw("</g>\n")
}

// explicitInitial marks the processes whose initial checkpoint the run
// writes itself (foreign runs may).
func (m *model) explicitInitial() []bool {
	explicit := make([]bool, len(m.run.Processes))
	for i := range m.run.Events {
		e := &m.run.Events[i]
		if e.Kind == trace.Checkpoint && e.Ckpt == 0 {
			explicit[e.P] = true
		}
	}
	return explicit
}

func (m *model) initialText(p int32) string {
	s := m.run.Processes[p] + " initial checkpoint 0 (t=0, pos 0"
	if m.isMS() {
		s += ", sn 0"
	}
	return s + ")"
}

func (m *model) isMS() bool { return strings.HasPrefix(m.run.Algorithm, "ms") }

// classKey is everything markClass looks at.
type classKey struct {
	kind               trace.Kind
	resend             bool
	via                trace.Via
	ckptType           trace.CkptType
	initial, discarded bool
	reason             trace.Reason
	state              trace.EndState
	undone             bool
}

// markClass is the CSS class of event i's mark: its shape's class, its
// kind's details, and undone / thrown away. A run has few distinct
// classes: each is built once.
func (m *model) markClass(i int32) string {
	e := &m.run.Events[i]
	k := classKey{kind: e.Kind, resend: e.Resend, via: e.Via, ckptType: e.CkptType, initial: e.Kind == trace.Checkpoint && e.Ckpt == 0,
		discarded: m.discarded[i], reason: e.Reason, state: e.State, undone: m.undone[i]}
	if c, ok := m.classes[k]; ok {
		return c
	}
	if m.classes == nil {
		m.classes = map[classKey]string{}
	}
	c := m.buildClass(i, e)
	m.classes[k] = c
	return c
}

func (m *model) buildClass(i int32, e *trace.RunEvent) string {
	var c string
	switch e.Kind {
	case trace.Send:
		c = "ev ev-send"
		if e.Resend {
			c += " resend"
		}
	case trace.Recv:
		c = "ev ev-recv"
		if e.Via == trace.ViaLog {
			c += " via-log"
		}
	case trace.Checkpoint:
		c = "ckpt ckpt-" + ckptType(e)
		if m.discarded[i] {
			c += " discarded"
		}
	case trace.CheckpointSkipped:
		c = "ev ev-skipped"
	case trace.Discard:
		c = "ev ev-discard reason-" + e.Reason.String()
	case trace.End:
		c = "ev ev-end state-" + e.State.String()
	case trace.Internal, trace.Hold, trace.Fail, trace.Restart, trace.Rollback, trace.Resume, trace.Unconsumed:
		c = "ev ev-" + e.Kind.String()
	default:
		c = "ev ev-other"
	}
	if m.undone[i] {
		c += " undone"
	}
	return c
}

func (m *model) mark(x *xw, i int32, e *trace.RunEvent) {
	cx, y := m.x[i], m.laneY(e.P)
	tag := "path"
	switch e.Kind {
	case trace.Send, trace.Recv, trace.Internal, trace.Unconsumed:
		tag = "circle"
	case trace.Checkpoint:
		tag = "rect"
	}
	x.raw("<" + tag + ` class="` + m.markClass(i) + `"`)
	x.int("data-seq", int(i))
	pt := func(cmd string, a, b float64) {
		x.raw(cmd)
		x.f(a)
		x.raw(" ")
		x.f(b)
	}
	circle := func(r float64) {
		x.num("cx", cx)
		x.num("cy", y)
		x.num("r", r)
	}
	switch e.Kind {
	case trace.Send, trace.Recv:
		circle(4.5)
	case trace.Internal:
		circle(4)
	case trace.Unconsumed:
		circle(3.5)
	case trace.Checkpoint:
		x.num("x", cx-4)
		x.num("y", y-8)
		x.raw(` width="8" height="16"`)
	default:
		x.raw(` d="`)
		switch e.Kind {
		case trace.CheckpointSkipped:
			pt("M", cx, y-7)
			pt(" L", cx, y+7)
		case trace.Discard:
			pt("M", cx-4.5, y-4.5)
			pt(" L", cx+4.5, y+4.5)
			pt(" M", cx-4.5, y+4.5)
			pt(" L", cx+4.5, y-4.5)
		case trace.Hold:
			pt("M", cx, y-5)
			pt(" L", cx+5, y)
			pt(" L", cx, y+5)
			pt(" L", cx-5, y)
			x.raw(" z")
		case trace.Fail:
			pt("M", cx-6, y-6)
			pt(" L", cx+6, y+6)
			pt(" M", cx-6, y+6)
			pt(" L", cx+6, y-6)
		case trace.Restart, trace.Rollback:
			pt("M", cx, y-10)
			pt(" L", cx, y+10)
		case trace.Resume:
			pt("M", cx-3, y-5)
			pt(" L", cx+4, y)
			pt(" L", cx-3, y+5)
			x.raw(" z")
		case trace.End:
			pt("M", cx, y-8)
			pt(" L", cx, y+8)
		default:
			pt("M", cx-2.5, y)
			pt(" L", cx+2.5, y)
		}
		x.raw(`"`)
	}
	x.raw("><title>")
	x.escBytes(m.describe(nil, i))
	x.raw("</title></" + tag + ">")
}

// textLabels writes the labels drawn beside marks and arrows, most
// important first, leaving out any that would overlap one already
// placed: what a lost receive waits for, checkpoint numbers (MS), then
// message names on arrows long enough to carry them.
func (m *model) textLabels(x *xw) {
	var pl placer
	x.raw(`<g class="labels">`)
	for _, a := range m.lost {
		e := &m.run.Events[a.to]
		s := "✗ " + m.msgName(a.msg) + " lost"
		m.label(x, &pl, "lost-label", s, m.x[a.to]+12, m.laneY(e.P)-12, false)
	}
	if m.isMS() {
		explicit := m.explicitInitial()
		for p := range m.run.Processes {
			if !explicit[p] {
				m.label(x, &pl, "sn", "0", m.geo.left, m.laneY(int32(p))+24, true)
			}
		}
	}
	for i := range m.run.Events {
		e := &m.run.Events[i]
		if m.drawn[i] && e.Kind == trace.Checkpoint && e.Sn >= 0 {
			m.label(x, &pl, "sn", strconv.Itoa(int(e.Sn)), m.x[i], m.laneY(e.P)+24, true)
		}
	}
	for _, a := range m.arrows {
		s, r := &m.run.Events[a.from], &m.run.Events[a.to]
		name := m.msgName(a.msg)
		lx, ly, room := m.labelSpot(s.P, r.P, m.x[a.from], m.x[a.to])
		if room >= textWidth(name, textFont, false)+10 {
			m.label(x, &pl, "msg-label msg-label-"+a.style, name, lx, ly+4, true)
		}
	}
	x.raw("</g>\n")
}

// labelSpot is where a message's name goes on its arrow from lane p1 at
// x1 to lane p2 at x2: halfway between the two lanes nearest the arrow's
// middle, never on a lane, where it would cover marks. room is the
// length of the arrow between those lanes.
func (m *model) labelSpot(p1, p2 int32, x1, x2 float64) (lx, ly, room float64) {
	lo, hi := min(p1, p2), max(p1, p2)
	k := (lo + hi - 1) / 2 // lanes k and k+1 hold the middle
	y1, y2 := m.laneY(p1), m.laneY(p2)
	ly = m.laneY(k) + laneGap/2
	t := (ly - y1) / (y2 - y1)
	lx = x1 + t*(x2-x1)
	dx := (x2 - x1) / float64(hi-lo)
	return lx, ly, math.Sqrt(dx*dx + laneGap*laneGap)
}

// label writes text at (lx, ly) (its baseline; centred or left-aligned)
// if the placer has room for it.
func (m *model) label(x *xw, pl *placer, class, s string, lx, ly float64, centred bool) {
	w := textWidth(s, textFont, false)
	b := box{lx, ly - textFont, lx + w, ly + 3}
	if centred {
		b.x0, b.x1 = lx-w/2, lx+w/2
	}
	b.x0, b.x1 = b.x0-2, b.x1+2
	if !pl.place(b) {
		return
	}
	x.raw(`<text class="` + class + `"`)
	x.num("x", lx)
	x.num("y", ly)
	x.raw(">")
	x.esc(s)
	x.raw("</text>")
}

// jumpText explains a rollback: who went back where, how much it undid
// and why.
func (m *model) jumpText(j jump) []byte {
	b := m.jumpHead(nil, j)
	b = append(b, "\n\n"...)
	return m.describe(b, j.ev)
}

func (m *model) jumpHead(b []byte, j jump) []byte {
	e := &m.run.Events[j.ev]
	b = append(b, m.run.Processes[e.P]...)
	if e.Kind == trace.Restart {
		b = append(b, " restarts from checkpoint "...)
	} else {
		b = append(b, " rolls back to checkpoint "...)
	}
	b = strconv.AppendInt(b, int64(e.Restore), 10)
	if j.ckpt != trace.None {
		c := &m.run.Events[j.ckpt]
		if c.Sn >= 0 {
			b = append(b, " (sn="...)
			b = strconv.AppendInt(b, int64(c.Sn), 10)
			b = append(b, ')')
		}
		if vt := m.run.VTOf(c); len(vt) > 0 {
			b = append(b, " vt="...)
			b = appendVT(b, vt)
		}
	}
	if e.Undone >= 0 {
		b = append(b, ", undoing "...)
		b = strconv.AppendInt(b, int64(e.Undone), 10)
		b = append(b, " ops"...)
	}
	if e.Pos >= 0 {
		b = append(b, ", keeping "...)
		b = strconv.AppendInt(b, int64(e.Pos), 10)
		b = append(b, " live"...)
	}
	b = append(b, "\nwhy: "...)
	switch {
	case e.Kind == trace.Restart:
		b = append(b, "it failed"...)
	case e.Cause == trace.CauseRequest:
		b = append(b, "a Rollback request"...)
	case e.Cause == trace.CauseMessage:
		b = append(b, "a message from a later recovery"...)
	case e.Cause == trace.CauseToken:
		b = append(b, "a token announced lost events its state depends on"...)
	default:
		b = append(b, "not recorded"...)
	}
	if f := e.Failure; f >= 0 && int(f) < m.n {
		b = append(b, " (failure #"...)
		b = strconv.AppendInt(b, int64(f), 10)
		b = append(b, " of "...)
		b = append(b, m.run.Processes[m.run.Events[f].P]...)
		b = append(b, ')')
	}
	return b
}
