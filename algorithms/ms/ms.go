// Package ms implements the Manivannan–Singhal quasi-synchronous
// checkpointing and recovery algorithm (SPEC §4) as a pure state machine
// driven by the replay engine (replay.Algorithm).
//
// The default variant generalises the seed's scalar incarnation number to a
// per-origin failure-count vector F and a set of applied recoveries, which
// stays sound under concurrent and repeated failures. The "textbook"
// variant applies the seed's scalar inc/rec_line rules literally. A few
// deliberately broken variants exist only to test the checker (see
// docs/ms.md): "no-forced", "no-log" and "replay-all".
package ms

import (
	"fmt"
	"sort"

	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// Variant names accepted by New.
const (
	Default   = ""
	Textbook  = "textbook"
	NoForced  = "no-forced"  // test-only mutant: no forced checkpoints
	NoLog     = "no-log"     // test-only mutant: nothing is logged
	ReplayAll = "replay-all" // test-only mutant: every logged entry is replayed
)

// recovery is one recovery R = (origin, count, r); the origin and count
// are its position in MS.recs.
type recovery struct {
	r       int32
	failure int32 // seq of the origin's fail event
}

type ckpt struct{ id, sn, pos int32 }

type logEntry struct {
	op   int32
	copy replay.CopyID
	pb   trace.Piggyback
}

type proc struct {
	sn, next int32
	nextID   int32
	ckpts    []ckpt // live checkpoints, oldest first; ckpts[0] is checkpoint 0
	// f is the applied-recovery vector, sparse and sorted by process. It
	// is replaced, never modified, when it changes, so piggybacks share it.
	f   []trace.FEntry
	log []logEntry // the stable message log, sorted by op
	// Textbook variant: the scalar incarnation and recovery line.
	inc, recLine int32
	down         bool
}

// MS is the Manivannan–Singhal state machine for every process of a trace.
type MS struct {
	name                       string
	textbook                   bool
	noForced, noLog, replayAll bool
	procs                      []proc
	recs                       [][]recovery // recs[o][c-1]: o's c-th recovery
	incFailure                 map[int32]int32
	names                      []string
}

// New returns the MS state machine for tr with the given variant.
func New(variant string, tr *trace.Trace) (*MS, error) {
	a := &MS{name: "ms", names: tr.Processes}
	switch variant {
	case Default:
	case Textbook:
		a.textbook, a.name = true, "ms-textbook"
		a.incFailure = map[int32]int32{}
	case NoForced:
		a.noForced = true
	case NoLog:
		a.noLog = true
	case ReplayAll:
		a.replayAll = true
	default:
		return nil, fmt.Errorf("ms: unknown variant %q (want %q)", variant, Textbook)
	}
	n := len(tr.Processes)
	a.procs = make([]proc, n)
	a.recs = make([][]recovery, n)
	for i := range a.procs {
		a.procs[i].nextID = 1
		a.procs[i].ckpts = []ckpt{{id: 0, sn: 0, pos: 0}}
	}
	return a, nil
}

// Name implements replay.Algorithm: "ms" or "ms-textbook" (the mutants
// report "ms", being stand-ins for a buggy implementation of it).
func (a *MS) Name() string { return a.name }

func fget(f []trace.FEntry, p int32) int32 {
	for _, e := range f {
		if e.P == p {
			return e.Count
		}
		if e.P > p {
			break
		}
	}
	return 0
}

// fset returns a new vector equal to f with entry p set to c.
func fset(f []trace.FEntry, p, c int32) []trace.FEntry {
	out := make([]trace.FEntry, 0, len(f)+1)
	done := false
	for _, e := range f {
		if e.P == p {
			out = append(out, trace.FEntry{P: p, Count: c})
			done = true
			continue
		}
		if e.P > p && !done {
			out = append(out, trace.FEntry{P: p, Count: c})
			done = true
		}
		out = append(out, e)
	}
	if !done {
		out = append(out, trace.FEntry{P: p, Count: c})
	}
	return out
}

// Step implements replay.Algorithm.
func (a *MS) Step(in *replay.Input, fx []replay.Effect) []replay.Effect {
	pr := &a.procs[in.P]
	switch in.Kind {
	case replay.InTick:
		pr.next++
		if in.Down {
			return fx
		}
		if pr.next > pr.sn {
			return a.checkpoint(in.P, in.Pos, pr.next, trace.CkptBasic, trace.None, fx)
		}
		e := replay.NewEffect(replay.EffSkip)
		e.Next, e.Sn = pr.next, pr.sn
		return append(fx, e)
	case replay.InSend:
		e := replay.NewEffect(replay.EffPiggyback)
		e.PB = trace.NewPiggyback()
		e.PB.Sn = pr.sn
		if a.textbook {
			e.PB.Inc, e.PB.RecLine = pr.inc, pr.recLine
		} else {
			e.PB.F = pr.f
		}
		return append(fx, e)
	case replay.InRecv:
		if a.textbook {
			return a.recvTextbook(in, fx)
		}
		return a.recv(in, fx)
	case replay.InFail:
		pr.down = true
	case replay.InRestart:
		return a.restart(in, fx)
	case replay.InControl:
		if in.Control == trace.ControlRollback && in.Body != nil {
			return a.rollbackRequest(in.P, in.Pos, in.Body, in.Failure, fx)
		}
	}
	return fx
}

func (a *MS) checkpoint(p, pos, sn int32, typ trace.CkptType, failure int32, fx []replay.Effect) []replay.Effect {
	pr := &a.procs[p]
	pr.sn = sn
	e := replay.NewEffect(replay.EffCheckpoint)
	e.Ckpt, e.CkptType, e.Sn, e.Failure = pr.nextID, typ, sn, failure
	pr.ckpts = append(pr.ckpts, ckpt{id: pr.nextID, sn: sn, pos: pos})
	pr.nextID++
	return append(fx, e)
}

// stale reports whether a message with piggyback pb is invalid for the
// recoveries p has applied: p applied some (o, c, r) its sender had not
// and pb.Sn ≥ r. It returns that recovery's failure.
func (a *MS) stale(p int32, pb *trace.Piggyback) (bool, int32) {
	if a.textbook {
		pr := &a.procs[p]
		if pb.Inc < pr.inc && pb.Sn >= pr.recLine {
			return true, a.incFailure[pr.inc]
		}
		return false, trace.None
	}
	for _, e := range a.procs[p].f {
		m := fget(pb.F, e.P)
		for c := m + 1; c <= e.Count; c++ {
			if rec := a.recs[e.P][c-1]; pb.Sn >= rec.r {
				return true, rec.failure
			}
		}
	}
	return false, trace.None
}

func (a *MS) recv(in *replay.Input, fx []replay.Effect) []replay.Effect {
	p := in.P
	pr := &a.procs[p]
	pb := in.PB
	// Case 1: a message from the future waits for the Rollback requests.
	for _, e := range pb.F {
		if have := fget(pr.f, e.P); e.Count > have {
			h := replay.NewEffect(replay.EffHold)
			h.Until = fmt.Sprintf("rollback(%s,%d)", a.names[e.P], have+1)
			h.Failure = a.recs[e.P][have].failure
			return append(fx, h)
		}
	}
	// Case 2: a delayed message is valid iff sent before every line. (The
	// replay-all mutant trusts its log blindly.)
	if bad, failure := a.stale(p, pb); bad && !(a.replayAll && in.Via == trace.ViaLog) {
		d := replay.NewEffect(replay.EffDiscard)
		d.Reason, d.Failure = trace.ReasonStale, failure
		if in.Via == trace.ViaLog {
			a.dropLog(p, in.Op)
		}
		return append(fx, d)
	}
	return a.deliver(in, fx)
}

// deliver applies the checkpoint and logging rules to a valid message.
func (a *MS) deliver(in *replay.Input, fx []replay.Effect) []replay.Effect {
	p := in.P
	pr := &a.procs[p]
	pb := in.PB
	switch {
	case pb.Sn > pr.sn:
		if !a.noForced {
			fx = a.checkpoint(p, in.Pos, pb.Sn, trace.CkptForced, trace.None, fx)
		}
	case pb.Sn < pr.sn:
		// A replayed receipt's entry is already in the log.
		if in.Via == trace.ViaNet && !a.noLog {
			a.addLog(p, logEntry{op: in.Op, copy: in.Copy, pb: *pb})
			l := replay.NewEffect(replay.EffLog)
			l.Copy, l.Op = in.Copy, in.Op
			fx = append(fx, l)
		}
	}
	return append(fx, replay.NewEffect(replay.EffDeliver))
}

func (a *MS) addLog(p int32, e logEntry) {
	pr := &a.procs[p]
	pr.log = append(pr.log, e)
	for i := len(pr.log) - 1; i > 0 && pr.log[i-1].op > e.op; i-- {
		pr.log[i-1], pr.log[i] = pr.log[i], pr.log[i-1]
	}
}

func (a *MS) dropLog(p, op int32) {
	pr := &a.procs[p]
	for i := range pr.log {
		if pr.log[i].op == op {
			pr.log = append(pr.log[:i], pr.log[i+1:]...)
			return
		}
	}
}

// replayLog applies the replay rule after restoring a checkpoint at pos:
// it keeps the entries before pos, keeps and returns those at or after pos
// that are still valid, and drops the rest. The result is fresh: one
// input may restore several times (a restart applying pending requests).
func (a *MS) replayLog(p, pos int32) []replay.LogCopy {
	pr := &a.procs[p]
	var out []replay.LogCopy
	// The log is sorted by op: entries before pos stay as they are.
	first := sort.Search(len(pr.log), func(i int) bool { return pr.log[i].op >= pos })
	kept := pr.log[:first]
	for _, e := range pr.log[first:] {
		if bad, _ := a.stale(p, &e.pb); bad && !a.replayAll {
			continue
		}
		out = append(out, replay.LogCopy{Op: e.op, Copy: e.copy})
		kept = append(kept, e)
	}
	pr.log = kept
	return out
}

// restore rolls p back to its earliest checkpoint numbered ≥ r, discarding
// the later ones, and returns it.
func (a *MS) restoreFrom(p, r int32) ckpt {
	pr := &a.procs[p]
	i := len(pr.ckpts) - 1
	for i > 0 && pr.ckpts[i-1].sn >= r {
		i--
	}
	pr.ckpts = pr.ckpts[:i+1]
	pr.sn = pr.ckpts[i].sn
	return pr.ckpts[i]
}

func (a *MS) restart(in *replay.Input, fx []replay.Effect) []replay.Effect {
	p := in.P
	pr := &a.procs[p]
	pr.down = false
	c := pr.ckpts[len(pr.ckpts)-1]
	r := c.sn
	pr.sn = r
	body := trace.NewControlBody()
	body.Origin, body.R = p, r
	e := replay.NewEffect(replay.EffRestart)
	e.Ckpt, e.Pos, e.Failure = c.id, c.pos, in.Failure
	if a.textbook {
		pr.inc++
		pr.recLine = r
		a.incFailure[pr.inc] = in.Failure
		body.Count = pr.inc
		e.Inc = pr.inc
	} else {
		count := fget(pr.f, p) + 1
		pr.f = fset(pr.f, p, count)
		a.recs[p] = append(a.recs[p], recovery{r: r, failure: in.Failure})
		body.Count = count
		// SPEC §6 gives every restart an inc; F[o] is what the seed's
		// incarnation number becomes in the generalisation (§4.2).
		e.Inc = count
	}
	e.Replay = a.replayLog(p, c.pos)
	fx = append(fx, e)
	for q := range a.procs {
		if int32(q) == p {
			continue
		}
		s := replay.NewEffect(replay.EffControl)
		s.To, s.Control, s.Body, s.Failure = int32(q), trace.ControlRollback, &body, in.Failure
		fx = append(fx, s)
	}
	pos := c.pos
	for i := range in.Pending {
		m := &in.Pending[i]
		if m.Control != trace.ControlRollback || m.Body == nil {
			continue
		}
		fx, _, pos = a.apply(p, pos, m.Body, m.Failure, trace.CauseRequest, fx)
	}
	return fx
}

func (a *MS) rollbackRequest(p, pos int32, b *trace.ControlBody, failure int32, fx []replay.Effect) []replay.Effect {
	fx, _, _ = a.apply(p, pos, b, failure, trace.CauseRequest, fx)
	return fx
}

// apply applies recovery b (origin, count, r) at p, currently at pos,
// unless p has applied it already. It reports whether p rolled back and
// p's position afterwards.
func (a *MS) apply(p, pos int32, b *trace.ControlBody, failure int32, cause trace.Cause, fx []replay.Effect) ([]replay.Effect, bool, int32) {
	pr := &a.procs[p]
	if a.textbook {
		if b.Count <= pr.inc {
			return fx, false, pos
		}
		pr.inc, pr.recLine = b.Count, b.R
		if _, ok := a.incFailure[b.Count]; !ok {
			a.incFailure[b.Count] = failure
		}
	} else {
		o := b.Origin
		if o < 0 || int(o) >= len(a.procs) || b.Count <= fget(pr.f, o) {
			return fx, false, pos
		}
		pr.f = fset(pr.f, o, b.Count)
	}
	r := b.R
	if pr.sn >= r {
		c := a.restoreFrom(p, r)
		e := replay.NewEffect(replay.EffRollback)
		e.Ckpt, e.Pos, e.Cause, e.Failure = c.id, c.pos, cause, failure
		e.Replay = a.replayLog(p, c.pos)
		return append(fx, e), true, c.pos
	}
	return a.checkpoint(p, pos, r, trace.CkptRecovery, failure, fx), false, pos
}

func (a *MS) recvTextbook(in *replay.Input, fx []replay.Effect) []replay.Effect {
	p := in.P
	pr := &a.procs[p]
	pb := in.PB
	if pb.Inc > pr.inc {
		body := trace.ControlBody{Count: pb.Inc, R: pb.RecLine}
		var moved bool
		fx, moved, _ = a.apply(p, in.Pos, &body, a.incFailure[pb.Inc], trace.CauseMessage, fx)
		if moved {
			return fx
		}
	}
	if bad, failure := a.stale(p, pb); bad {
		d := replay.NewEffect(replay.EffDiscard)
		d.Reason, d.Failure = trace.ReasonStale, failure
		if in.Via == trace.ViaLog {
			a.dropLog(p, in.Op)
		}
		return append(fx, d)
	}
	return a.deliver(in, fx)
}
