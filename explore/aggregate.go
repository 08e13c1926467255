package explore

import "sync"

// What explore keeps of the schedules it runs. Every figure is a sum, a
// maximum or a minimum with the schedule ordinal as tie-break, so the
// order in which workers add their schedules does not matter: the output
// does not depend on the number of cores.

// worstAt is one figure of Worst as the workers keep it: the value and
// a copy of the schedule that reached it, described only in result (a
// description counts the ops before each point: under the tally's lock,
// once per lead taken, it made explore quadratic in the trace).
type worstAt struct {
	v int
	s *sched
}

// offer keeps the larger of w and v, schedule s's, the earlier schedule
// on a tie.
func (w *worstAt) offer(v int, s *sched) {
	if w.s == nil || leads(v, s.ordinal, w.v, w.s.ordinal) {
		c := *s
		*w = worstAt{v, &c}
	}
}

// extreme describes w for the result.
func (w *worstAt) extreme() Extreme {
	if w.s == nil {
		return Extreme{}
	}
	info := w.s.info()
	return Extreme{Value: w.v, Schedule: &info}
}

// beaten reports whether value v, reached by the schedule of ordinal
// ord, replaces x (a shard's, when shards merge).
func (x *Extreme) beaten(v int, ord int64) bool {
	return x.Schedule == nil || leads(v, ord, x.Value, x.Schedule.Ordinal)
}

// leads reports whether value v, reached by the schedule of ordinal ord,
// replaces a worst case of value cur reached at curOrd: a larger value,
// or the same reached earlier. One rule for the workers and the merge.
func leads(v int, ord int64, cur int, curOrd int64) bool {
	return v > cur || (v == cur && ord < curOrd)
}

// add counts times failures that undid undone ops each.
func (p *PerFailure) add(undone int, times int64) {
	p.merge(PerFailure{Failures: times, Total: int64(undone) * times, Max: undone})
}

// merge adds o's failures into p.
func (p *PerFailure) merge(o PerFailure) {
	if o.Failures <= 0 {
		return
	}
	if p.Failures == 0 || o.Max > p.Max {
		p.Max = o.Max
	}
	p.Failures += o.Failures
	p.Total += o.Total
	p.Mean = float64(p.Total) / float64(p.Failures)
}

// algTally is one algorithm's tally.
type algTally struct {
	failing, classes [16]int64
	// na and unknown count the runs in which the checker reported a
	// property n/a or unknown.
	na, unknown [16]int64
	// first is the first schedule failing each property (nil: none).
	first [16]*sched
	// worst holds Worst's Undone, Processes and Extra, in that order.
	worst [3]worstAt
	pf    PerFailure
}

// tally is what the workers found, each adding its schedules under mu.
type tally struct {
	mu       sync.Mutex
	algs     []algTally
	baseline PerFailure
	run      int64
	covered  int64
	// err is the error of the earliest failing schedule, if any.
	err    error
	errOrd int64
}

func newTally(nalg int) *tally {
	return &tally{algs: make([]algTally, nalg), errOrd: -1}
}

// addVerdict counts algorithm a's verdict on schedule s. inj maps s's
// injected failures to their fail ordinals in the schedule's trace.
func (t *tally) addVerdict(a int, s *sched, v *verdict, inj []int32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	at := &t.algs[a]
	for i := range Properties {
		if v.na&(1<<i) != 0 {
			at.na[i]++
		}
		if v.unknown&(1<<i) != 0 {
			at.unknown[i]++
		}
		if v.fails&(1<<i) == 0 {
			continue
		}
		at.failing[i] += s.size
		at.classes[i]++
		if f := at.first[i]; f == nil || s.ordinal < f.ordinal {
			c := *s
			at.first[i] = &c
		}
	}
	for j, k := range inj {
		r := &v.recs[k]
		if !r.found {
			continue
		}
		at.worst[0].offer(r.undone, s)
		at.worst[1].offer(r.rolled, s)
		at.worst[2].offer(r.extra, s)
		if j > 0 || s.size == 1 {
			at.pf.add(r.undone, s.size)
			continue
		}
		// The class's other members crashed d internal ops earlier: the
		// failed process lost d ops less (never below nothing), the rest
		// of the recovery is the same (reduce.go).
		for d := int64(0); d < s.size; d++ {
			failed := max(0, r.failed-int(d))
			at.pf.add(r.undone-r.failed+failed, 1)
		}
	}
}

// addBaseline counts the uncoordinated baseline of s's effective injected
// failures, and s as run.
func (t *tally) addBaseline(s *sched, eff []bool) {
	bu := s.b.baselines()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.run++
	t.covered += s.size
	for j, g := range s.pts {
		if !eff[j] {
			continue
		}
		if j > 0 || s.size == 1 {
			t.baseline.add(bu[g], s.size)
			continue
		}
		// The class's members: the points of the stretch ending at g.
		pt := &s.b.points[g]
		for d := range pt.Size {
			t.baseline.add(bu[s.b.byID[pt.ID-d]], 1)
		}
	}
}

// fail records err, schedule s's, if s is the earliest schedule to fail.
func (t *tally) fail(s *sched, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err == nil || s.ordinal < t.errOrd {
		t.err, t.errOrd = err, s.ordinal
	}
}
