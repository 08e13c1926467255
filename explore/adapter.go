package explore

// This file is explore's only contact with the engine, the algorithms and
// the checker: their public entry points, adapted to what explore keeps
// of a run. Other packages' internals may change freely behind them.

import (
	"fmt"
	"math"
	"slices"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/measure"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// Properties are the checker's properties, in report order; bit i of a
// verdict's fails is Properties[i].
var Properties = report.PropertyNames

// verdict is what explore keeps of one replay and check: which properties
// fail, and per injected failure of the schedule the recovery the
// checker reports for it.
type verdict struct {
	fails uint16
	// na and unknown mark the properties the checker could not judge
	// (report.NA, report.Unknown) in this run.
	na, unknown uint16
	recs        []recStat
}

// recStat sums one recovery line; found is false for a failure the
// engine ignored, whose process was already down (SPEC §3).
type recStat struct {
	found bool
	measure.Sum
	// extra is measure.Extra, measured only where it may lead the worst
	// case (math.MinInt elsewhere: it never does).
	extra int
}

// Constructor builds the state machine of algorithm name in variant for
// a trace (algorithms.New's signature).
type Constructor func(name, variant string, tr *trace.Trace) (replay.Algorithm, error)

// engine replays and checks one algorithm (name, variant); alg is the
// name runs and reports give it ("ms", "ms-textbook", "pk").
type engine struct {
	name, variant, alg string
	mk                 Constructor
}

// newEngine checks that the algorithm exists. variant applies if the
// algorithm has it; otherwise the algorithm runs as is (--algo both
// --variant textbook: pk has no textbook variant).
func newEngine(mk Constructor, name, variant string, tr *trace.Trace) (engine, error) {
	if mk == nil {
		mk = algorithms.New
	}
	if a, ok := algorithms.Lookup(name); ok && !a.Recovery {
		return engine{}, fmt.Errorf("%s has no recovery to explore (failures are injected); ckpt compare measures how far a failure would roll it back", name)
	}
	a, err := mk(name, variant, tr)
	if err != nil && variant != "" {
		variant = ""
		a, err = mk(name, "", tr)
	}
	if err != nil {
		return engine{}, err
	}
	return engine{name: name, variant: variant, alg: a.Name(), mk: mk}, nil
}

// judged is a replay of a schedule's trace through the engine's
// algorithm and the checker's stream judging its run as it is made:
// cloned together at each failure point, so that each schedule replays
// and judges its suffix only (docs/explore.md, "Shared prefixes").
type judged struct {
	sim *replay.Sim
	st  *consistency.Stream
	// fed counts the run's events the stream has taken, and fails lists
	// the seqs of their fail events: the engine records every fail,
	// ignored or not, in trace order.
	fed   int
	fails []int32
	// from is the replay and stream this one was cloned from.
	from *judged
}

// start prepares the replay of tr through the engine's algorithm and
// its judging, to be run, stopped and cloned.
func (e engine) start(tr *trace.Trace) (*judged, error) {
	alg, err := e.mk(e.name, e.variant, tr)
	if err != nil {
		return nil, err
	}
	sim, err := replay.Start(tr, alg, replay.Options{Variant: e.variant})
	if err != nil {
		return nil, err
	}
	return &judged{sim: sim, st: consistency.NewSharedStream(sim.Run(), tr, len(tr.Events))}, nil
}

// catchUp feeds the stream the events the replay has made since.
func (j *judged) catchUp() {
	run := j.sim.Run()
	for ; j.fed < len(run.Events); j.fed++ {
		if run.Events[j.fed].Kind == trace.Fail {
			j.fails = append(j.fails, int32(j.fed))
		}
		j.st.Add(&run.Events[j.fed])
	}
}

// clone copies j where it stopped, to go on over tr: j's trace with a
// fail inserted at index at.
func (j *judged) clone(tr *trace.Trace, at int32) (*judged, error) {
	j.catchUp()
	cs, err := j.sim.Clone()
	if err != nil {
		return nil, err
	}
	if err := cs.Insert(tr, at, 1); err != nil {
		return nil, err
	}
	return &judged{sim: cs, st: j.st.Clone(cs.Run(), tr, int(at)), fed: j.fed, fails: slices.Clone(j.fails), from: j}, nil
}

// release ends j, finished and judged: its memory serves the next clone
// of the one it was cloned from.
func (j *judged) release() {
	j.sim.Release()
	if j.from != nil {
		j.from.st.Recycle(j.st)
	}
}

// finish replays and judges the rest of the run, filling v; with inj
// (the fail ordinals of the schedule's injected failures), also v.recs,
// their extra rollbacks measured from floor up.
func (j *judged) finish(v *verdict, inj []int32, floor int) error {
	if _, err := j.sim.Finish(); err != nil {
		return err
	}
	j.catchUp()
	v.judge(j.st, j.fails, inj, floor)
	return nil
}

// judge fills v with what st, fed a whole run, reports, and with the
// recoveries of the injected failures inj, fail ordinals mapped to run
// seqs by fails. An extra rollback is measured only for a recovery that
// undid floor ops or more: it is never more than the ops undone, and
// below floor it cannot lead the worst case (tally.extraFloor).
func (v *verdict) judge(st *consistency.Stream, fails, inj []int32, floor int) {
	rep := st.Report()
	v.fails, v.na, v.unknown = 0, 0, 0
	for i := range rep.Properties {
		bit := uint16(1) << propIndex(rep.Properties[i].Name)
		switch rep.Properties[i].Status {
		case report.Fail:
			v.fails |= bit
		case report.NA:
			v.na |= bit
		case report.Unknown:
			v.unknown |= bit
		}
	}
	m := st.Model()
	v.recs = v.recs[:0]
	for _, k := range inj {
		r := recStat{}
		if fi, ok := m.FailureAt(fails[k]); ok {
			r = recStat{found: true, Sum: measure.Summarize(m, int(fi)), extra: math.MinInt}
			if r.Undone >= floor {
				r.extra = measure.Extra(m, int(fi), r.Undone)
			}
		}
		v.recs = append(v.recs, r)
	}
}

// status is property i's status in the run v judged.
func (v *verdict) status(i int) report.Status {
	bit := uint16(1) << i
	switch {
	case v.fails&bit != 0:
		return report.Fail
	case v.unknown&bit != 0:
		return report.Unknown
	case v.na&bit != 0:
		return report.NA
	}
	return report.Pass
}

// failsProperty reports whether tr, replayed and checked, fails the
// property with index prop (the shrinker's test, run for every candidate:
// it judges without measuring the recoveries, which it never reads).
func (e engine) failsProperty(tr *trace.Trace, prop int) bool {
	var v verdict
	j, err := e.start(tr)
	if err != nil || j.finish(&v, nil, 0) != nil {
		return false
	}
	return v.fails&(1<<prop) != 0
}

func propIndex(name string) int {
	for i, p := range Properties {
		if p == name {
			return i
		}
	}
	return 15
}
