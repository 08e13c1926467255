package explore

import (
	"fmt"
	"sync"

	"github.com/ckpt-dev/ckpt/measure"
	"github.com/ckpt-dev/ckpt/trace"
)

// base is the trace the schedules of one delay choice share — the input
// trace itself, or a re-timed copy of it under --delays — with its
// failure points. It is immutable once built, so every worker reads it
// without locks; a schedule is just a few point indexes into it.
type base struct {
	tr *trace.Trace
	// extra is the extra delay each message got (nil: the recorded
	// delays).
	extra []trace.Time
	// points in global order; byID maps a point's ID to its index.
	points []Point
	byID   []int32
	// firstFail is the index of the trace's first own `fail` event, or
	// len(Events): a quiet stretch ending at or after it cannot be merged
	// (reduce.go).
	firstFail int32
	// need marks the points whose baseline the schedules run on this
	// base read, set before they run (needs); baseline is, per point of
	// them, the ops uncoordinated checkpointing would undo for a failure
	// there (computed once, on first use).
	need         []bool
	baselineOnce sync.Once
	baseline     []int
}

// newBase prepares tr (validated, its Params the effective ones) for
// exploration.
func newBase(tr *trace.Trace, extra []trace.Time) *base {
	b := &base{tr: tr, extra: extra, firstFail: firstFail(tr)}
	b.points, b.byID = findPoints(tr, tr.Params.RestartDelay)
	return b
}

// firstFail is the index of tr's first own `fail` event, or len(Events).
func firstFail(tr *trace.Trace) int32 {
	for i := range tr.Events {
		if tr.Events[i].Kind == trace.Fail {
			return int32(i)
		}
	}
	return int32(len(tr.Events))
}

// traceBuf holds the slices a worker reuses to build schedule traces: a
// schedule's trace lives only while it is replayed and checked.
type traceBuf struct {
	tr trace.Trace
	// inj holds, per injected point of the last build, its ordinal among
	// the trace's fail events.
	inj []int32
}

// build returns the trace of the schedule that injects a failure at each
// of the points pts (global indexes, ascending), reusing buf's storage.
// With labels, every injected fail says where it is (for witnesses).
func (b *base) build(pts []int32, buf *traceBuf, labels bool) *trace.Trace {
	src := b.tr
	t := &buf.tr
	t.Name, t.Processes, t.Params, t.Msgs = src.Name, src.Processes, src.Params, src.Msgs
	// The schedule's labels extend a copy of the base's, never the
	// base's own table, which every worker shares.
	t.Labels = append(t.Labels[:0], src.Labels...)
	evs := t.Events[:0]
	buf.inj = buf.inj[:0]
	j, fails := 0, int32(0)
	for i := 0; i <= len(src.Events); i++ {
		for j < len(pts) && b.points[pts[j]].Gap == int32(i) {
			evs = append(evs, b.failEvent(t, pts[j], labels))
			buf.inj = append(buf.inj, fails)
			fails++
			j++
		}
		if i == len(src.Events) {
			break
		}
		if src.Events[i].Kind == trace.Fail {
			fails++
		}
		evs = append(evs, src.Events[i])
	}
	t.Events = evs
	msgs := append(t.Messages[:0], src.Messages...)
	if len(pts) > 0 {
		for m := range msgs {
			msgs[m].Send = b.shift(msgs[m].Send, pts)
			msgs[m].Recv = b.shift(msgs[m].Recv, pts)
		}
	}
	t.Messages = msgs
	return t
}

// shift maps a base-trace index to its index once the fails at pts are
// inserted.
func (b *base) shift(i int32, pts []int32) int32 {
	if i == trace.None {
		return i
	}
	n := int32(0)
	for _, g := range pts {
		if b.points[g].Gap <= i {
			n++
		}
	}
	return i + n
}

// failEvent is the injected fail of point g, its label (if any) added
// to t.
func (b *base) failEvent(t *trace.Trace, g int32, labels bool) trace.Event {
	pt := &b.points[g]
	ev := trace.Event{T: pt.T, Kind: trace.Fail, P: pt.P, To: trace.None, Msg: trace.None, Down: pt.Down}
	if labels {
		ev.Label = t.AddLabel(fmt.Sprintf("explore: injected, %s; down %ss", b.describe(pt), pt.Down))
	}
	return ev
}

// needs marks the points whose baseline schedule s reads
// (tally.addBaseline): its own, and for its first failure the points of
// the stretch where its class's members crash.
func (b *base) needs(s *sched) {
	for j, g := range s.pts {
		members := int32(1)
		if j == 0 {
			members = int32(s.size)
		}
		for d := range members {
			b.need[b.byID[b.points[g].ID-d]] = true
		}
	}
}

// baselines returns, per global point b.need marks, the ops
// uncoordinated checkpointing undoes for a failure there on its own:
// SPEC §7's baseline (measure.Uncoordinated) of the base trace with a
// fail at each of these points, which takes each fail on its own
// (computed once, on first use). A base of a sampled delay vector serves
// a schedule or two: it draws their lines, not one per point.
func (b *base) baselines() []int {
	b.baselineOnce.Do(func() {
		b.baseline = make([]int, len(b.points))
		var pts []int32
		for g, ok := range b.need {
			if ok {
				pts = append(pts, int32(g))
			}
		}
		var buf traceBuf
		u, err := measure.Uncoordinated(b.build(pts, &buf, false))
		if err != nil {
			return // the base trace is valid: cannot happen
		}
		for j, k := range buf.inj {
			for _, e := range u.Line[k].Line {
				b.baseline[pts[j]] += e.Undone
			}
		}
	})
	return b.baseline
}
