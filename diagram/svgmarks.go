package diagram

import (
	"cmp"
	"math"
	"strconv"
	"strings"

	"github.com/ckpt-dev/ckpt/trace"
)

// marks draws one mark per drawn slotted event, plus the implicit initial
// checkpoints at column 0 (right of the lane names, never on them).
func (m *model) marks(x *xw) {
	run := m.run
	for p, implicit := range m.implicit {
		if implicit {
			x.put(`<rect class="ckpt ckpt-initial" data-p="%v" x="%v" y="%v" width="8" height="16"`, run.Processes[p], m.geo.left-4, m.laneY(int32(p))-8)
			x.end("rect", m.initialText(int32(p)))
		}
	}
	for i := range run.Events {
		if m.drawn[i] && slotted(run.Events[i].Kind) {
			m.mark(x, int32(i), &run.Events[i])
		}
	}
	for _, a := range m.lost {
		cx, y := m.x[a.to], m.laneY(run.Events[a.to].P)
		x.put(`<path class="lost-mark" data-seq="%v" d="M%v %v l16 16 m0 -16 l-16 16"`, a.to, cx-8, y-8)
		x.end("path", m.arrowText(a))
	}
}

func (m *model) isMS() bool { return strings.HasPrefix(m.run.Algorithm, "ms") }

// markClass is the CSS class of event i's mark: its shape's class, its
// kind's details, and undone / thrown away.
func (m *model) markClass(i int32) string {
	e := &m.run.Events[i]
	c := "ev ev-" + e.Kind.String()
	switch e.Kind {
	case trace.Send:
		if e.Resend {
			c += " resend"
		}
	case trace.Recv:
		if e.Via == trace.ViaLog {
			c += " via-log"
		}
	case trace.Checkpoint:
		t := cmp.Or(e.CkptType.String(), "basic") // its CSS class: basic when untyped, initial for checkpoint 0
		if e.Ckpt == 0 {
			t = "initial"
		}
		c = "ckpt ckpt-" + t
		if m.discarded[i] {
			c += " discarded"
		}
	case trace.CheckpointSkipped:
		c = "ev ev-skipped"
	case trace.Discard:
		c += " reason-" + e.Reason.String()
	case trace.End:
		c += " state-" + e.State.String()
	case trace.Internal, trace.Hold, trace.Fail, trace.Restart, trace.Rollback, trace.Resume, trace.Unconsumed:
	default:
		c = "ev ev-other"
	}
	if m.undone(i) {
		c += " undone"
	}
	return c
}

// seg is one command of a mark's path, at (dx, dy) from the event's
// point; " z" takes none.
type seg struct {
	cmd    string
	dx, dy float64
}

var (
	// radius is the size of the marks drawn as circles.
	radius = map[trace.Kind]float64{trace.Send: 4.5, trace.Recv: 4.5, trace.Internal: 4, trace.Unconsumed: 3.5}
	// shapes are the marks drawn as paths; other kinds get a short dash.
	shapes = map[trace.Kind][]seg{
		trace.CheckpointSkipped: {{"M", 0, -7}, {" L", 0, 7}},
		trace.Discard:           {{"M", -4.5, -4.5}, {" L", 4.5, 4.5}, {" M", -4.5, 4.5}, {" L", 4.5, -4.5}},
		trace.Hold:              {{"M", 0, -5}, {" L", 5, 0}, {" L", 0, 5}, {" L", -5, 0}, {" z", 0, 0}},
		trace.Fail:              {{"M", -6, -6}, {" L", 6, 6}, {" M", -6, 6}, {" L", 6, -6}},
		trace.Restart:           {{"M", 0, -10}, {" L", 0, 10}},
		trace.Rollback:          {{"M", 0, -10}, {" L", 0, 10}},
		trace.Resume:            {{"M", -3, -5}, {" L", 4, 0}, {" L", -3, 5}, {" z", 0, 0}},
		trace.End:               {{"M", 0, -8}, {" L", 0, 8}},
	}
	otherShape = []seg{{"M", -2.5, 0}, {" L", 2.5, 0}}
)

func (m *model) mark(x *xw, i int32, e *trace.RunEvent) {
	cx, y := m.x[i], m.laneY(e.P)
	tag := "path"
	r, round := radius[e.Kind]
	switch {
	case round:
		tag = "circle"
		x.put(`<circle class="%v" data-seq="%v" cx="%v" cy="%v" r="%v"`, m.markClass(i), i, cx, y, r)
	case e.Kind == trace.Checkpoint:
		tag = "rect"
		x.put(`<rect class="%v" data-seq="%v" x="%v" y="%v" width="8" height="16"`, m.markClass(i), i, cx-4, y-8)
	default:
		shape, ok := shapes[e.Kind]
		if !ok {
			shape = otherShape
		}
		x.put(`<path class="%v" data-seq="%v" d="`, m.markClass(i), i)
		for _, s := range shape {
			x.raw(s.cmd)
			if s.cmd != " z" {
				x.put("%v %v", cx+s.dx, y+s.dy)
			}
		}
		x.raw(`"`)
	}
	x.end(tag, string(m.describe(nil, i)))
}

// textLabels writes the labels drawn beside marks and arrows, most
// important first, leaving out any that would overlap one already
// placed: what a lost receive waits for, checkpoint numbers (MS), then
// message names on arrows long enough to carry them.
func (m *model) textLabels(x *xw) {
	pl := placer{}
	for _, a := range m.lost {
		e := &m.run.Events[a.to]
		s := "✗ " + m.msgName(a.msg) + " lost"
		m.label(x, pl, "lost-label", s, m.x[a.to]+12, m.laneY(e.P)-12, false)
	}
	if m.isMS() {
		for p, implicit := range m.implicit {
			if implicit {
				m.label(x, pl, "sn", "0", m.geo.left, m.laneY(int32(p))+24, true)
			}
		}
	}
	for i := range m.run.Events {
		e := &m.run.Events[i]
		if m.drawn[i] && e.Kind == trace.Checkpoint && e.Sn >= 0 {
			m.label(x, pl, "sn", strconv.Itoa(int(e.Sn)), m.x[i], m.laneY(e.P)+24, true)
		}
	}
	for _, a := range m.arrows {
		s, r := &m.run.Events[a.from], &m.run.Events[a.to]
		name := m.msgName(a.msg)
		lx, ly, room := m.labelSpot(s.P, r.P, m.x[a.from], m.x[a.to])
		if room >= textWidth(name, textFont, false)+10 {
			m.label(x, pl, "msg-label msg-label-"+a.style, name, lx, ly+4, true)
		}
	}
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
func (m *model) label(x *xw, pl placer, class, s string, lx, ly float64, centred bool) {
	w := textWidth(s, textFont, false)
	b := box{lx, ly - textFont, lx + w, ly + 3}
	if centred {
		b.x0, b.x1 = lx-w/2, lx+w/2
	}
	b.x0, b.x1 = b.x0-2, b.x1+2
	if pl.place(b) {
		x.text(class, lx, ly, s)
	}
}
