package explore

import (
	"math"
	"slices"
	"sync"

	"github.com/ckpt-dev/ckpt/report"
)

// What explore keeps of the schedules it runs, and how shards merge: one
// model, the Result's, and one rule to add findings into it (add, offer,
// merge), whether they are one schedule's, as the workers add them, or
// a shard's (Merge). Every figure is a sum, a maximum or a minimum with
// the schedule ordinal as tie-break, so the order in which findings are
// added does not matter: the output depends neither on the number of
// cores nor on the shard split.

// statusOrder ranks the statuses as PropertyResult.Status sums them up
// over the runs, the higher winning; "" is no run yet (settle: pass).
var statusOrder = []report.Status{"", report.NA, report.Pass, report.Unknown, report.Fail}

// add adds o's counts and status into p, and its witness if it is the
// first in schedule order.
func (p *PropertyResult) add(o *PropertyResult) {
	p.Failing += o.Failing
	p.FailingClasses += o.FailingClasses
	if slices.Index(statusOrder, o.Status) > slices.Index(statusOrder, p.Status) {
		p.Status = o.Status
	}
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
	if o.Schedule != nil && (x.Schedule == nil || o.Value > x.Value || (o.Value == x.Value && o.Schedule.Ordinal < x.Schedule.Ordinal)) {
		*x = o
	}
}

// add counts times failures that undid undone ops each.
func (p *PerFailure) add(undone int, times int64) {
	p.merge(PerFailure{Failures: times, Total: int64(undone) * times, Max: undone})
}

// addClass counts s's injected failure j, which undid undone(0) ops;
// when it is the first failure of a class of several schedules, the
// member whose failure came d points earlier in the stretch undid
// undone(d) (reduce.go).
func (p *PerFailure) addClass(s *sched, j int, undone func(d int32) int) {
	if j > 0 || s.size == 1 {
		p.add(undone(0), s.size)
		return
	}
	for d := range int32(s.size) {
		p.add(undone(d), 1)
	}
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
	// progress is Options.Progress of the schedules run (nil: none).
	progress func(run int64)
}

func newTally(x *explorer) *tally {
	t := &tally{errOrd: -1}
	for _, e := range x.engines {
		t.algs = append(t.algs, newAlgorithmResult(e.alg))
	}
	if p := x.o.Progress; p != nil {
		t.progress = func(run int64) { p(run, x.total.Load()) }
	}
	return t
}

// addVerdict counts algorithm a's verdict on schedule s.
func (t *tally) addVerdict(a int, s *sched, v *verdict) {
	t.mu.Lock()
	defer t.mu.Unlock()
	at := &t.algs[a]
	for i := range at.Properties {
		o := PropertyResult{Status: v.status(i)}
		if o.Status == report.Fail {
			o.Failing, o.FailingClasses = s.size, 1
			o.Witness = &Witness{Schedule: ScheduleInfo{Ordinal: s.ordinal}, s: s}
		}
		at.Properties[i].add(&o)
	}
	info := &ScheduleInfo{Ordinal: s.ordinal}
	for j := range v.recs {
		r := &v.recs[j]
		if !r.found {
			continue
		}
		at.Worst.Undone.offer(Extreme{Value: r.Undone, Schedule: info, s: s})
		at.Worst.Processes.offer(Extreme{Value: r.Rolled, Schedule: info, s: s})
		at.Worst.Extra.offer(Extreme{Value: r.extra, Schedule: info, s: s})
		// The class's other members crashed d internal ops earlier: the
		// failed process lost d ops less (never below nothing), the rest
		// of the recovery is the same (reduce.go).
		at.PerFailure.addClass(s, j, func(d int32) int { return r.Undone - r.Failed + max(0, r.Failed-int(d)) })
	}
}

// extraFloor is the value algorithm a's worst extra rollback has
// reached so far (math.MinInt: none yet). It only grows: a recovery that
// undid fewer ops cannot reach it.
func (t *tally) extraFloor(a int) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if w := &t.algs[a].Worst.Extra; w.Schedule != nil {
		return w.Value
	}
	return math.MinInt
}

// addBaseline counts the uncoordinated baseline of s's effective injected
// failures, and s as run, which it reports as progress.
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
		// The class's members: the points of the stretch ending at g.
		id := s.b.points[g].ID
		t.baseline.addClass(s, j, func(d int32) int { return bu[s.b.byID[id-d]] })
	}
	if t.progress != nil {
		t.progress(t.run)
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
