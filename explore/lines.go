package explore

import (
	"fmt"
	"slices"

	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/rline"
	"github.com/ckpt-dev/ckpt/trace"
)

// Lines answers, for a checkpointing protocol without recovery (bcs,
// fdas, hmnr, coordinated, or uncoordinated checkpointing), the question
// Run answers for MS and PK with --failures 1: how many ops would one
// failure undo? There is no recovery to replay, so it is measured on the
// checkpoints the protocol places (docs/explore.md, "Protocols without
// recovery"): the protocol runs the trace failure-free once, and for a
// crash at every failure point of tr (the points Run injects failures
// at) the maximum consistent recovery line of checkpoints is computed
// (Wang 1997, package rline) — the failed process at its latest
// checkpoint, every other process at its state at the crash, rollbacks
// propagated over the messages received by then — and its ops undone,
// summed over the processes, are the crash's cost. For uncoordinated
// checkpointing this is SPEC §7's baseline exactly.
//
// A crash "before op k of p" happens when p is about to run op k in the
// protocol's own run, and one before a tick or flush at its time (cuts
// in lines.go). For a protocol that does not delay the computation this
// is where Run injects the failure; coordinated checkpointing blocks, so
// its run is slower than the trace, and a crash at a trace time would
// find it with less work done and charge it less: it is charged for the
// same crash in the program instead.
//
// run is the protocol's run of tr, which Prepare made failure-free (a
// fail event is refused), as Replay makes it. Every point counts once,
// so the figures are over the same space as Run's per-failure
// statistics. Cost: per point the propagation only.
func Lines(tr *trace.Trace, run *trace.Run) (PerFailure, error) {
	if i := firstFail(tr); int(i) < len(tr.Events) {
		return PerFailure{}, &trace.InputError{File: tr.Name, Event: int(i), Doc: "trace",
			Msg: "fail: recovery lines are measured on failure-free executions (strip the trace's failures)"}
	}
	var pf PerFailure
	err := newBase(tr, nil).lines(run, func(_ int, line []rline.Entry) { pf.add(undone(line), 1) })
	return pf, err
}

// Replay replays tr, failure-free, through alg for Lines: every tick
// labelled with its trace index, so that Lines finds what each tick
// became in the run; the run is otherwise the protocol's run of tr.
func Replay(tr *trace.Trace, alg replay.Algorithm) (*trace.Run, error) {
	run, err := replay.Run(tickLabelled(tr), alg, replay.Options{})
	if err != nil {
		return nil, fmt.Errorf("replaying through %s: %w", alg.Name(), err)
	}
	return run, nil
}

// undone sums the ops a recovery line undoes over the processes.
func undone(line []rline.Entry) int {
	u := 0
	for _, e := range line {
		u += int(e.Undone)
	}
	return u
}

// lines calls each with the recovery line of a crash at every failure
// point (g its global index) over run, a protocol's run of the base
// trace (Replay), in the order of the crashes in the run: the lines are
// not all kept at once. It walks the run once, keeping every process's
// ops and latest checkpoint, and at each cut (a crash before that run
// event) propagates rollbacks from the crashed process's latest
// checkpoint.
func (b *base) lines(run *trace.Run, each func(g int, line []rline.Entry)) error {
	h, err := newHistory(run, b.tr)
	if err != nil {
		return err
	}
	cuts := make([]int32, len(b.points))
	order := make([]int, len(b.points))
	for g := range b.points {
		cuts[g], order[g] = h.cut(&b.points[g]), g
	}
	slices.SortStableFunc(order, func(a, b int) int { return int(cuts[a] - cuts[b]) })
	n := len(run.Processes)
	ops, latest := make([]int32, n), make([]int32, n)
	next := 0
	for i := 0; i <= len(run.Events); i++ {
		for ; next < len(order) && cuts[order[next]] == int32(i); next++ {
			g := order[next]
			f := b.points[g].P
			start := slices.Clone(ops)
			start[f] = latest[f]
			line, err := h.g.Line(start, ops)
			if err != nil {
				return err
			}
			each(g, line)
		}
		if i == len(run.Events) {
			break
		}
		e := &run.Events[i]
		switch {
		case e.Kind == trace.Checkpoint:
			latest[e.P] = e.Pos
		case e.Kind.IsOp():
			ops[e.P]++
		}
	}
	return nil
}
