package explore

import (
	"fmt"
	"sync"

	"github.com/ckpt-dev/ckpt/consistency/rline"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// Lines answers, for a checkpointing protocol without recovery (bcs,
// fdas, hmnr, coordinated, or uncoordinated checkpointing), the question
// Run answers for MS and PK with --failures 1: how many ops would one
// failure undo? There is no recovery to replay, so it is measured on the
// checkpoints the protocol places (docs/explore.md, "Protocols without
// recovery"): at every failure point of tr (the points Run injects
// failures at), the protocol runs failure-free until the failure; then
// the maximum consistent recovery line of checkpoints is computed (Wang
// 1997, consistency/rline) — the failed process at its latest
// checkpoint, every other process at its state at the failure instant,
// rollbacks propagated over the messages received by then — and its
// ops undone, summed over the processes, are the failure's cost. This is
// SPEC §7's uncoordinated baseline with the protocol's checkpoints in
// place of the timer ticks: for uncoordinated checkpointing it is that
// baseline exactly.
//
// mk builds the protocol's state machine for the failure-free trace. The
// trace's own failures must be stripped (o.StripFailures) or absent;
// o.Params, o.Workers and o.Progress apply, the rest of o does not. Every
// point counts once, so the figures are those of Run's per-failure
// statistics over the same space. Cost: one replay of the trace up to
// each point, O(points × events).
func Lines(tr *trace.Trace, mk func(*trace.Trace) (replay.Algorithm, error), o Options) (PerFailure, error) {
	per, err := LinesPerPoint(tr, mk, o)
	if err != nil {
		return PerFailure{}, err
	}
	var pf perFail
	for _, u := range per {
		pf.add(u, 1)
	}
	return pf.result(), nil
}

// LinesPerPoint is Lines' figure at each failure point, in the global
// order of points (by trace position).
func LinesPerPoint(tr *trace.Trace, mk func(*trace.Trace) (replay.Algorithm, error), o Options) ([]int, error) {
	if err := o.normalize(); err != nil {
		return nil, err
	}
	prep, err := prepare(tr, &o)
	if err != nil {
		return nil, err
	}
	for i := range prep.Events {
		if prep.Events[i].Kind == trace.Fail {
			return nil, &trace.InputError{File: tr.Name, Event: i, Doc: "trace",
				Msg: "fail: recovery lines are measured on failure-free executions (strip the trace's failures)"}
		}
	}
	if _, err := mk(prep); err != nil {
		return nil, err
	}
	b := newBase(prep, nil)
	out := make([]int, len(b.points))
	errs := make([]error, len(b.points))
	next := make(chan int32)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := int64(0)
	for range o.Workers {
		wg.Go(func() {
			for g := range next {
				out[g], errs[g] = b.lineAt(g, mk)
				if o.Progress != nil {
					mu.Lock()
					done++
					o.Progress(done, int64(len(out)))
					mu.Unlock()
				}
			}
		})
	}
	for g := range b.points {
		next <- int32(g)
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// lineAt replays the base trace up to a failure at point g and returns
// the ops the maximum consistent recovery line undoes.
func (b *base) lineAt(g int32, mk func(*trace.Trace) (replay.Algorithm, error)) (int, error) {
	line, _, err := b.recoveryLine(g, mk)
	undone := 0
	for _, e := range line {
		undone += int(e.Undone)
	}
	return undone, err
}

// recoveryLine replays the base trace up to a failure at point g and
// returns the maximum consistent recovery line and each process's
// checkpoint positions (the initial one first) at the failure.
func (b *base) recoveryLine(g int32, mk func(*trace.Trace) (replay.Algorithm, error)) ([]rline.Entry, [][]int32, error) {
	alg, err := mk(b.tr)
	if err != nil {
		return nil, nil, err
	}
	run, err := replay.Run(b.cut(g), &untilFail{Algorithm: alg}, replay.Options{})
	if err != nil {
		return nil, nil, fmt.Errorf("replaying through %s up to a failure of %s: %w", alg.Name(), b.describe(&b.points[g]), err)
	}
	return lineOf(run)
}

// cut returns the base trace up to point g, with the failure there and
// nothing after it: what comes later cannot change the state at the
// failure (SPEC §3 runs later trace items after it), and a replay of
// the prefix costs only the prefix.
func (b *base) cut(g int32) *trace.Trace {
	src := b.tr
	gap := b.points[g].Gap
	evs := make([]trace.Event, gap+1)
	copy(evs, src.Events[:gap])
	evs[gap] = b.failEvent(g, false)
	msgs := make([]trace.Message, len(src.Messages))
	for m, x := range src.Messages {
		if x.Send >= gap {
			x.Send = trace.None
		}
		if x.Recv >= gap {
			x.Recv = trace.None
		}
		msgs[m] = x
	}
	return &trace.Trace{Name: src.Name, Processes: src.Processes, Params: src.Params, Msgs: src.Msgs, Messages: msgs, Events: evs}
}

// untilFail runs a protocol until the failure, and then keeps the engine
// going without it (the run after the failure is not looked at): every
// copy delivered, empty piggybacks, a restart from the initial
// checkpoint. The protocols without recovery never see a failure.
type untilFail struct {
	replay.Algorithm
	failed bool
}

// Step implements replay.Algorithm.
func (a *untilFail) Step(in *replay.Input, fx []replay.Effect) []replay.Effect {
	if in.Kind == replay.InFail {
		a.failed = true
		return fx
	}
	if !a.failed {
		return a.Algorithm.Step(in, fx)
	}
	switch in.Kind {
	case replay.InSend:
		fx = append(fx, replay.Effect{Kind: replay.EffPiggyback, PB: trace.NewPiggyback()})
	case replay.InRecv:
		fx = append(fx, replay.Effect{Kind: replay.EffDeliver})
	case replay.InRestart:
		fx = append(fx, replay.Effect{Kind: replay.EffRestart, Failure: in.Failure})
	}
	return fx
}

// lineOf reads the failure-free prefix of run up to its fail event —
// each process's ops and checkpoint positions, the messages received —
// and returns the maximum consistent recovery line of checkpoints from
// the failure, and the checkpoint positions.
func lineOf(run *trace.Run) ([]rline.Entry, [][]int32, error) {
	n := len(run.Processes)
	ops := make([]int32, n)
	ckpts := make([][]int32, n)
	for p := range ckpts {
		ckpts[p] = []int32{0}
	}
	sent := make([]rline.Msg, len(run.Msgs))
	var msgs []rline.Msg
	for i := range run.Events {
		e := &run.Events[i]
		switch e.Kind {
		case trace.Fail:
			line, err := lineFrom(e.P, ops, ckpts, msgs)
			return line, ckpts, err
		case trace.Checkpoint:
			ckpts[e.P] = append(ckpts[e.P], e.Pos)
		case trace.Send:
			sent[e.Msg] = rline.Msg{From: e.P, SendOp: e.Op}
			ops[e.P]++
		case trace.Recv:
			m := sent[e.Msg]
			m.To, m.RecvOp = e.P, e.Op
			msgs = append(msgs, m)
			ops[e.P]++
		case trace.Internal:
			ops[e.P]++
		}
	}
	return nil, nil, fmt.Errorf("the run has no failure")
}

// lineFrom propagates rollbacks from a failure of f: f from its latest
// checkpoint, everyone else from its current state.
func lineFrom(f int32, ops []int32, ckpts [][]int32, msgs []rline.Msg) ([]rline.Entry, error) {
	g, err := rline.New(ckpts, msgs)
	if err != nil {
		return nil, err
	}
	start := make([]int32, len(ops))
	copy(start, ops)
	start[f] = ckpts[f][len(ckpts[f])-1]
	return g.Line(start, ops)
}
