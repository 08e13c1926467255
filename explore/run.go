package explore

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/trace"
)

// sched is one schedule to run: failure points of the base trace of a
// delay vector.
type sched struct {
	ordinal int64
	// vec is the seed a sampled schedule's delay vector is drawn from (0:
	// the recorded delays): its base b is built when its schedules are
	// run (b is nil until then).
	vec  uint64
	b    *base
	pts  []int32
	size int64
}

// worker holds one goroutine's reusable buffers.
type worker struct {
	x *explorer
	// bufs[d] holds the trace of the node at depth d of the prefix tree
	// being walked (depth 0 is the base trace itself).
	bufs []traceBuf
	v    verdict
	eff  []bool
}

// node is a node of the prefix tree: the schedule (run or not) of its
// depth-d prefix, its trace, and a replay of it per engine with its
// judging, stopped where the schedules below it part (nil: replay from
// the start).
type node struct {
	b    *base
	d    int
	tr   *trace.Trace
	inj  []int32
	sims []*judged
}

// run runs the schedules of a task, which share their base: one
// failure-free replay and judging per engine, cloned at each failure
// point, each clone continued over its schedule.
func (w *worker) run(task []sched, t *tally) {
	b := task[0].b
	root := &node{b: b, tr: b.tr, sims: make([]*judged, len(w.x.engines))}
	for a, e := range w.x.engines {
		root.sims[a], _ = e.start(b.tr) // on error, each schedule replays alone and says why
	}
	w.walk(root, task, t)
}

// walk runs the schedules of list, which all extend n's prefix and are
// sorted by their points (n's own schedule first, if it is one): the
// schedules below each next point g on clones of n's replays stopped
// before g, then n's own on its replays, run to the end.
func (w *worker) walk(n *node, list []sched, t *tally) {
	var self *sched
	if len(list) > 0 && len(list[0].pts) == n.d {
		self, list = &list[0], list[1:]
	}
	for len(list) > 0 && w.x.ctx.Err() == nil {
		g := list[0].pts[n.d]
		j := 1
		for j < len(list) && list[j].pts[n.d] == g {
			j++
		}
		w.walk(w.child(n, list[0].pts[:n.d+1]), list[:j], t)
		list = list[j:]
	}
	if self != nil && w.x.ctx.Err() == nil {
		w.runSchedule(n, self, t)
	}
}

// child returns the node of prefix pts, n's prefix and one more point:
// n's replays run until that point, cloned with their judging and
// continued over its trace.
func (w *worker) child(n *node, pts []int32) *node {
	buf := &w.bufs[n.d+1]
	pt := &n.b.points[pts[n.d]]
	// The fails of the prefix all come before the new one.
	at := pt.Gap + int32(n.d)
	c := &node{b: n.b, d: n.d + 1, tr: n.b.build(pts, buf, false), inj: buf.inj, sims: make([]*judged, len(n.sims))}
	for a, s := range n.sims {
		if s == nil {
			continue
		}
		if err := s.sim.RunUntil(at, pt.T); err != nil {
			n.sims[a] = nil
			continue
		}
		c.sims[a], _ = s.clone(c.tr, at) // on error, the schedules below replay alone
	}
	return c
}

// runSchedule finishes n's replays (or replays its trace from the start
// where there is none), checks the runs and counts s in t.
func (w *worker) runSchedule(n *node, s *sched, t *tally) {
	for a, e := range w.x.engines {
		j, err := n.sims[a], error(nil)
		n.sims[a] = nil
		if j == nil {
			j, err = e.start(n.tr)
		}
		if err == nil {
			err = j.finish(&w.v, n.inj, t.extraFloor(a))
		}
		if err != nil {
			t.fail(s, fmt.Errorf("schedule %d: replaying through %s: %w", s.ordinal, e.name, err))
			return
		}
		j.release()
		if a == 0 {
			// The engine ignores a fail of a process already down (SPEC
			// §3), whatever the algorithm: the checker then reports no
			// recovery for it, and it is left out of the baseline.
			w.eff = w.eff[:0]
			for _, r := range w.v.recs {
				w.eff = append(w.eff, r.found)
			}
		}
		t.addVerdict(a, s, &w.v)
	}
	t.addBaseline(s, w.eff)
}
