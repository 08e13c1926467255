package mutants

import (
	"fmt"
	"slices"

	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// The MS mutants whose broken rule the machine's own later decisions
// depend on (no-forced: its sn; replay-all: its message log). Dropping an
// effect afterwards would leave the machine believing in a checkpoint or
// a log the engine never had, so these wrappers edit the input instead,
// so that the real machine itself decides as the broken one would, and
// keep what the real machine no longer has (replay-all's full log).
// What they need to know of the machine's state they ask the machine:
// a probe, or a clone stepped in its place.

// msProbe reads the real machine's current sn and F for a process: the
// piggyback it gives a send. MS answers InSend from its state without
// changing it (TestProbePure checks that probing leaves runs unchanged),
// so a probe is a read, not an event; it is a call after another, never
// inside one, so Step is still not re-entered.
type msProbe struct {
	in replay.Input
	fx []replay.Effect
}

// of returns the piggyback p's next send would carry.
func (pr *msProbe) of(a replay.Algorithm, p replay.Proc) trace.Piggyback {
	pr.in = replay.Input{Kind: replay.InSend, P: p}
	pr.fx = a.Step(&pr.in, pr.fx[:0])
	if len(pr.fx) != 1 || pr.fx[0].Kind != replay.EffPiggyback {
		panic(fmt.Sprintf("mutants: %s answers a probe with %v, not one piggyback", a.Name(), pr.fx))
	}
	return pr.fx[0].PB
}

// noForcedMS never takes forced checkpoints (SPEC §4.1 broken): a copy
// that MS would deliver after a forced checkpoint (M.sn > sn) reaches the
// machine with M.sn lowered to sn, so the machine delivers it with no
// checkpoint and its sn stays, as in an implementation without the rule.
// A stale copy is passed unchanged: lowering its sn could make it look
// valid, and that is another rule. Whether it is stale the real machine
// says, asked on a clone (so the machine itself is stepped once).
type noForcedMS struct {
	replay.Algorithm
	probe msProbe
	in    replay.Input
	pb    trace.Piggyback
}

// newNoForced wraps a, the real default MS, so that every rule but the
// forced checkpoint is the real one.
func newNoForced(a replay.Algorithm, _ int) replay.Algorithm { return &noForcedMS{Algorithm: a} }

// Step implements replay.Algorithm.
func (w *noForcedMS) Step(in *replay.Input, fx []replay.Effect) []replay.Effect {
	if in.Kind == replay.InRecv {
		if own := w.probe.of(w.Algorithm, in.P); in.PB.Sn > own.Sn && !w.discards(in) {
			w.pb = *in.PB
			w.pb.Sn = own.Sn
			w.in = *in
			w.in.PB = &w.pb
			in = &w.in
		}
	}
	return w.Algorithm.Step(in, fx)
}

// discards reports whether the real machine discards in's copy, as it
// does a stale one: a clone of it is stepped instead.
func (w *noForcedMS) discards(in *replay.Input) bool {
	w.probe.fx = cloneOf(w.Algorithm).Step(in, w.probe.fx[:0])
	return slices.ContainsFunc(w.probe.fx, func(f replay.Effect) bool { return f.Kind == replay.EffDiscard })
}

// replayAllMS takes every logged entry for valid (SPEC §4.2's replay
// rule broken): a restore replays every entry logged at or after the
// restored position, and a replayed copy is delivered even when stale.
// The real machine drops invalid entries from its log, so the wrapper
// keeps the full log itself, from the EffLog effects, and replaces each
// restore's replay list; a replayed copy reaches the machine with the
// receiver's own F, so that the machine finds it valid and delivers it
// by its own rules (a forced checkpoint first if M.sn > sn).
type replayAllMS struct {
	replay.Algorithm
	probe msProbe
	log   [][]replay.LogCopy // per process, sorted by op
	// buf holds the replay lists of one Step's restores.
	buf []replay.LogCopy
	in  replay.Input
	pb  trace.Piggyback
}

// newReplayAll wraps a, the real default MS for n processes, so that
// every rule but the replay rule is the real one.
func newReplayAll(a replay.Algorithm, n int) replay.Algorithm {
	return &replayAllMS{Algorithm: a, log: make([][]replay.LogCopy, n)}
}

// Step implements replay.Algorithm.
func (w *replayAllMS) Step(in *replay.Input, fx []replay.Effect) []replay.Effect {
	if in.Kind == replay.InRecv && in.Via == trace.ViaLog {
		w.pb = *in.PB
		w.pb.F = w.probe.of(w.Algorithm, in.P).F
		w.in = *in
		w.in.PB = &w.pb
		in = &w.in
	}
	n := len(fx)
	fx = w.Algorithm.Step(in, fx)
	w.buf = w.buf[:0]
	for i := n; i < len(fx); i++ {
		switch f := &fx[i]; f.Kind {
		case replay.EffLog:
			w.add(in.P, replay.LogCopy{Op: f.Op, Copy: f.Copy})
		case replay.EffRestart, replay.EffRollback:
			f.Replay = w.replayFrom(in.P, f.Pos)
		}
	}
	return fx
}

// add logs e, keeping p's log sorted by op (as ms.addLog does).
func (w *replayAllMS) add(p replay.Proc, e replay.LogCopy) {
	l := append(w.log[p], e)
	for i := len(l) - 1; i > 0 && l[i-1].Op > e.Op; i-- {
		l[i-1], l[i] = l[i], l[i-1]
	}
	w.log[p] = l
}

// replayFrom returns every entry of p's log at or after pos, in buf: the
// engine copies a replay list when it applies the restore, after Step.
func (w *replayAllMS) replayFrom(p replay.Proc, pos int32) []replay.LogCopy {
	start := len(w.buf)
	for _, e := range w.log[p] {
		if e.Op >= pos {
			w.buf = append(w.buf, e)
		}
	}
	if len(w.buf) == start {
		return nil
	}
	return w.buf[start:len(w.buf):len(w.buf)]
}
