package history_test

import (
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// violations returns the violations of property name in the checker's
// report on run (the run spec judges what the builder leaves unjudged).
func violations(run *trace.Run, name string) []report.Violation {
	for _, p := range consistency.Check(run, nil).Properties {
		if p.Name == name {
			return p.Violations
		}
	}
	return nil
}

// Checkpoint ids need not be the checkpoints' indexes: a foreign run may
// number them sparsely, and a run that reuses one breaks its form. The
// builder keeps no id map while ids are indexes (the engine's numbering),
// so both paths are judged here against the same engine runs.
func TestCheckpointIDs(t *testing.T) {
	for name, run := range engineRuns(t) {
		base := history.Build(run, nil, history.AlgOf(run))
		if len(base.Restores) == 0 {
			continue
		}
		sparse := renumbered(run, func(id int32) int32 { return 3*id + 100 })
		m := builderOf(sparse)
		if r := consistency.Check(sparse, nil); !r.Valid {
			t.Errorf("%s: sparse ids: invalid: %+v", name, r.Properties)
		}
		for p := range base.Procs {
			for _, c := range base.Procs[p].Taken[1:] {
				got, ok := m.CkptByID(int32(p), 3*c.ID+100)
				if !ok || got.Seq != c.Seq {
					t.Errorf("%s: P%d: id %d (was %d) finds seq %d, %v; want seq %d", name, p, 3*c.ID+100, c.ID, got.Seq, ok, c.Seq)
				}
				if _, ok := m.CkptByID(int32(p), c.ID); ok && c.ID != 0 && (c.ID-100)%3 != 0 {
					t.Errorf("%s: P%d: old id %d still found", name, p, c.ID)
				}
			}
		}
	}
}

// builderOf is the builder of run's model once every event is added.
func builderOf(run *trace.Run) *history.Builder {
	b := history.NewBuilder(run, nil, history.AlgOf(run), len(run.Events))
	for i := range run.Events {
		b.Add(&run.Events[i])
	}
	return b
}

// renumbered copies run with every checkpoint id other than the initial
// one's, and every restore naming one, mapped by f.
func renumbered(run *trace.Run, f func(int32) int32) *trace.Run {
	c := *run
	c.Events = append([]trace.RunEvent(nil), run.Events...)
	for i := range c.Events {
		e := &c.Events[i]
		if e.Kind == trace.Checkpoint && e.Ckpt > 0 {
			e.Ckpt = f(e.Ckpt)
		}
		if e.Restore > 0 {
			e.Restore = f(e.Restore)
		}
	}
	return &c
}

// A checkpoint that takes an id its process used before is reported,
// whether the ids so far were indexes (no map yet) or not.
func TestCheckpointIDReused(t *testing.T) {
	for _, shift := range []int32{0, 100} {
		for name, run := range engineRuns(t) {
			r := renumbered(run, func(id int32) int32 { return id + shift })
			// The second checkpoint of the first process with two takes
			// the first one's id.
			first := map[int32]int32{}
			reused := false
			for i := range r.Events {
				e := &r.Events[i]
				if e.Kind != trace.Checkpoint || e.Ckpt <= 0 {
					continue
				}
				if id, ok := first[e.P]; ok {
					e.Ckpt, reused = id, true
					break
				}
				first[e.P] = e.Ckpt
			}
			if !reused {
				continue
			}
			found := false
			for _, v := range violations(r, report.Equivalence) {
				found = found || strings.Contains(v.Message, "reuses checkpoint id")
			}
			if !found {
				t.Errorf("%s (ids +%d): a reused checkpoint id is not reported", name, shift)
			}
		}
	}
}

// A checkpoint written without an id is found by no id, though the ids
// around it are indexes.
func TestCheckpointWithoutID(t *testing.T) {
	for name, run := range engineRuns(t) {
		r := renumbered(run, func(id int32) int32 { return id })
		for i := range r.Events {
			e := &r.Events[i]
			if e.Kind != trace.Checkpoint || e.Ckpt <= 0 {
				continue
			}
			id, p := e.Ckpt, e.P
			e.Ckpt = trace.None
			if c, ok := builderOf(r).CkptByID(p, id); ok {
				t.Errorf("%s: P%d: id %d, written without, finds the checkpoint at seq %d", name, p, id, c.Seq)
			}
			break
		}
	}
}
