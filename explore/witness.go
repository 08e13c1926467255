package explore

import (
	"bytes"
	"cmp"
	"math/big"
	"slices"

	"github.com/ckpt-dev/ckpt/explore/shrink"
	"github.com/ckpt-dev/ckpt/pipeline"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/codec"
)

// DefaultShrinkTests bounds the replays shrinking one witness may spend.
const DefaultShrinkTests = 5000

// result turns the tally into the Result: it describes the schedules
// the findings name and shrinks one witness per failing (algorithm,
// property), unless the exploration was stopped.
func (x *explorer) result(t *tally) *Result {
	r := &Result{File: x.tr.Name, Scope: x.scope, Stopped: x.ctx.Err() != nil, Algorithms: t.algs, Baseline: t.baseline}
	r.Scope.Run, r.Scope.ToRun = t.run, x.total.Load()
	r.Scope.Covered = big.NewInt(t.covered)
	r.Scope.setCoverage()
	var jobs []func()
	for a, e := range x.engines {
		ar := &r.Algorithms[a]
		for i := range ar.Properties {
			if w := ar.Properties[i].Witness; w != nil {
				w.Schedule = w.s.info()
				jobs = append(jobs, func() { x.shrinkWitness(e, i, w, !r.Stopped) })
			}
		}
		for _, w := range []*Extreme{&ar.Worst.Undone, &ar.Worst.Processes, &ar.Worst.Extra} {
			if w.s != nil {
				info := w.s.info()
				w.Schedule = &info
			}
		}
	}
	r.settle()
	(&pipeline.Pipeline{Cores: x.o.Workers}).Each(len(jobs), func(i int) { jobs[i]() })
	return r
}

// shrinkWitness rebuilds the trace of w's schedule (with labels on the
// injected fails) and, if shrunk is set, shrinks it while property
// prop still fails.
func (x *explorer) shrinkWitness(e engine, prop int, w *Witness, shrunk bool) {
	// A traceBuf of its own: the trace outlives the call.
	var buf traceBuf
	tr := w.s.b.build(w.s.pts, &buf, true)
	w.Trace = tr
	if shrunk {
		res := shrink.Trace(tr, func(c *trace.Trace) bool { return e.failsProperty(c, prop) }, x.o.ShrinkTests)
		w.Trace, w.Tests = res.Trace, res.Tests
	}
	w.Events, w.Processes, w.Messages = len(w.Trace.Events), len(w.Trace.Processes), len(w.Trace.Msgs)
	w.OriginalEvents, w.OriginalProcesses, w.OriginalMessages = len(tr.Events), len(tr.Processes), len(tr.Msgs)
	var doc bytes.Buffer
	if err := codec.WriteTrace(&doc, w.Trace, codec.WriteOptions{}); err == nil {
		w.Doc = doc.Bytes()
	}
}

// info describes the schedule r names.
func (r *sched) info() ScheduleInfo {
	s := ScheduleInfo{Ordinal: r.ordinal, Class: r.size, Failures: []FailureInfo{}, Delays: []DelayInfo{}}
	for _, g := range r.pts {
		pt := &r.b.points[g]
		s.Failures = append(s.Failures, FailureInfo{P: r.b.tr.Processes[pt.P], T: pt.T, Down: pt.Down, Where: r.b.describe(pt)})
	}
	for m, d := range r.b.extra {
		if d != 0 {
			s.Delays = append(s.Delays, DelayInfo{Msg: r.b.tr.Msgs[m], Extra: d})
		}
	}
	return s
}

// settle sets what follows from the figures: pass for the properties
// of no run (add sums the others' statuses up); an algorithm is valid
// when no property has a failing schedule (a witness); the verdict
// (Result.Verdict) and Valid with it; and the notes on surprising
// per-failure figures (UndoneNote).
func (r *Result) settle() {
	r.Verdict = report.VerdictValid
	for a := range r.Algorithms {
		ar := &r.Algorithms[a]
		for i := range ar.Properties {
			p := &ar.Properties[i]
			p.Status = cmp.Or(p.Status, report.Pass)
		}
		ar.Valid = !slices.ContainsFunc(ar.Properties, func(p PropertyResult) bool { return p.Witness != nil })
		switch {
		case !ar.Valid:
			r.Verdict = report.VerdictInvalid
		case r.Verdict == report.VerdictValid && !slices.ContainsFunc(ar.Properties, func(p PropertyResult) bool { return p.Status == report.Pass }):
			r.Verdict = report.VerdictUnknown
		}
		ar.Note = UndoneNote(ar.Algorithm, ar.PerFailure.Mean, r.Baseline.Mean)
	}
	if r.Stopped {
		r.Verdict = VerdictStopped
	}
	r.Valid = r.Verdict == report.VerdictValid
}

// setCoverage sets Coverage from Covered.
func (s *Scope) setCoverage() {
	if s.Schedules.Sign() > 0 {
		s.Coverage, _ = new(big.Rat).SetFrac(s.Covered, s.Schedules).Float64()
	}
}
