package explore

import "sync"

// What explore keeps of the schedules it runs, and how shards merge: one
// model, the Result's, and one rule to add findings into it (add, offer,
// merge), whether they are one schedule's, as the workers add them, or
// a shard's (Merge). Every figure is a sum, a maximum or a minimum with
// the schedule ordinal as tie-break, so the order in which findings are
// added does not matter: the output depends neither on the number of
// cores nor on the shard split.

// add adds o's counts into p, and its witness if it is the first in
// schedule order.
func (p *PropertyResult) add(o *PropertyResult) {
	p.Failing += o.Failing
	p.FailingClasses += o.FailingClasses
	p.na += o.na
	p.unknown += o.unknown
	if o.Witness != nil && (p.Witness == nil || o.Witness.Schedule.Ordinal < p.Witness.Schedule.Ordinal) {
		p.Witness = o.Witness
	}
}

// add adds o, the findings of other schedules, into a.
func (a *AlgorithmResult) add(o *AlgorithmResult) {
	for i := range a.Properties {
		a.Properties[i].add(&o.Properties[i])
	}
	a.Worst.Undone.offer(o.Worst.Undone)
	a.Worst.Processes.offer(o.Worst.Processes)
	a.Worst.Extra.offer(o.Worst.Extra)
	a.PerFailure.merge(o.PerFailure)
}

// offer keeps o if it leads x: a larger value, or the same reached by an
// earlier schedule.
func (x *Extreme) offer(o Extreme) {
	if o.set() && (!x.set() || o.Value > x.Value || (o.Value == x.Value && o.ordinal() < x.ordinal())) {
		*x = o
	}
}

// set reports whether some schedule reached x.
func (x *Extreme) set() bool { return x.s != nil || x.Schedule != nil }

// ordinal is the ordinal of the schedule that reached x.
func (x *Extreme) ordinal() int64 {
	if x.s != nil {
		return x.s.ordinal
	}
	return x.Schedule.Ordinal
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

// newAlgorithmResult is the findings of no schedule on algorithm alg.
func newAlgorithmResult(alg string) AlgorithmResult {
	ar := AlgorithmResult{Algorithm: alg, Properties: make([]PropertyResult, len(Properties))}
	for i, name := range Properties {
		ar.Properties[i].Name = name
	}
	return ar
}

// tally is what the workers found, each adding its schedules under mu.
type tally struct {
	mu       sync.Mutex
	algs     []AlgorithmResult
	baseline PerFailure
	run      int64
	covered  int64
	// err is the error of the earliest failing schedule, if any.
	err    error
	errOrd int64
}

func newTally(engines []engine) *tally {
	t := &tally{errOrd: -1}
	for _, e := range engines {
		t.algs = append(t.algs, newAlgorithmResult(e.alg))
	}
	return t
}

// addVerdict counts algorithm a's verdict on schedule s. inj maps s's
// injected failures to their fail ordinals in the schedule's trace.
func (t *tally) addVerdict(a int, s *sched, v *verdict, inj []int32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	at := &t.algs[a]
	for i := range at.Properties {
		var o PropertyResult
		if v.na&(1<<i) != 0 {
			o.na = 1
		}
		if v.unknown&(1<<i) != 0 {
			o.unknown = 1
		}
		if v.fails&(1<<i) != 0 {
			o.Failing, o.FailingClasses = s.size, 1
			o.Witness = &Witness{Schedule: ScheduleInfo{Ordinal: s.ordinal}, s: s}
		}
		at.Properties[i].add(&o)
	}
	for j, k := range inj {
		r := &v.recs[k]
		if !r.found {
			continue
		}
		at.Worst.Undone.offer(Extreme{Value: r.undone, s: s})
		at.Worst.Processes.offer(Extreme{Value: r.rolled, s: s})
		at.Worst.Extra.offer(Extreme{Value: r.extra, s: s})
		if j > 0 || s.size == 1 {
			at.PerFailure.add(r.undone, s.size)
			continue
		}
		// The class's other members crashed d internal ops earlier: the
		// failed process lost d ops less (never below nothing), the rest
		// of the recovery is the same (reduce.go).
		for d := int64(0); d < s.size; d++ {
			failed := max(0, r.failed-int(d))
			at.PerFailure.add(r.undone-r.failed+failed, 1)
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
