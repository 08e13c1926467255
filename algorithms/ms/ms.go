// Package ms implements the Manivannan–Singhal quasi-synchronous
// checkpointing and recovery algorithm (SPEC §4) as a pure state machine
// driven by the replay engine (replay.Algorithm).
//
// The default variant generalises the seed's scalar incarnation number to a
// per-origin failure-count vector F and a set of applied recoveries, which
// stays sound under concurrent and repeated failures. The "textbook"
// variant applies the seed's scalar inc/rec_line rules literally.
//
// The rules are one file each: checkpointing and the piggyback here,
// receipt of a message (recv.go), the message log and its replay
// (log.go), recoveries (recovery.go), the textbook variant's own rules
// (textbook.go).
package ms

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// Variant names accepted by New.
const (
	Default  = ""
	Textbook = "textbook"
)

// recovery is one recovery R = (origin, count, r); the origin and count
// are its position in MS.recs.
type recovery struct {
	r       int32
	failure replay.Seq // the origin's fail event
}

type ckpt struct{ id, sn, pos int32 }

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
}

// MS is the Manivannan–Singhal state machine for every process of a trace.
type MS struct {
	name       string
	textbook   bool
	procs      []proc
	recs       [][]recovery // recs[o][c-1]: o's c-th recovery
	incFailure map[int32]replay.Seq
	names      []string
}

// New returns the MS state machine for tr with the given variant.
func New(variant string, tr *trace.Trace) (*MS, error) {
	a := &MS{name: "ms", names: tr.Processes}
	switch variant {
	case Default:
	case Textbook:
		a.textbook, a.name = true, "ms-textbook"
		a.incFailure = map[int32]replay.Seq{}
	default:
		return nil, fmt.Errorf("ms: unknown variant %q (want %s)", variant, Textbook)
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

// Name implements replay.Algorithm: "ms" or "ms-textbook".
func (a *MS) Name() string { return a.name }

// Step implements replay.Algorithm.
func (a *MS) Step(in *replay.Input, fx []replay.Effect) []replay.Effect {
	switch in.Kind {
	case replay.InTick:
		return a.tick(in, fx)
	case replay.InSend:
		return append(fx, replay.Effect{Kind: replay.EffPiggyback, PB: a.piggyback(in.P)})
	case replay.InRecv:
		return a.recv(in, fx)
	case replay.InRestart:
		return a.restart(in, fx)
	case replay.InControl:
		if in.Control == trace.ControlRollback && in.Body != nil {
			fx, _, _ = a.apply(in.P, in.Pos, in.Body, in.Failure, trace.CauseRequest, fx)
		}
	}
	// InFail: MS keeps nothing volatile that its decisions use (the log
	// is stable: it is written before the delivery).
	return fx
}

// tick applies the timer rule of SPEC §4.1: next counts every tick, also
// while down; a basic checkpoint is taken iff next > sn.
func (a *MS) tick(in *replay.Input, fx []replay.Effect) []replay.Effect {
	pr := &a.procs[in.P]
	pr.next++
	if in.Down {
		return fx
	}
	if pr.next > pr.sn {
		return a.checkpoint(in.P, in.Pos, pr.next, trace.CkptBasic, 0, fx)
	}
	return append(fx, replay.Effect{Kind: replay.EffSkip, Next: pr.next, Sn: pr.sn})
}

// piggyback is what p's sends carry: sn and F (textbook: sn, inc and
// rec_line).
func (a *MS) piggyback(p replay.Proc) trace.Piggyback {
	pr := &a.procs[p]
	pb := trace.NewPiggyback()
	pb.Sn = pr.sn
	if a.textbook {
		pb.Inc, pb.RecLine = pr.inc, pr.recLine
	} else {
		pb.F = pr.f
	}
	return pb
}

// checkpoint takes p's next checkpoint, numbered sn, at pos.
func (a *MS) checkpoint(p replay.Proc, pos, sn int32, typ trace.CkptType, failure replay.Seq, fx []replay.Effect) []replay.Effect {
	pr := &a.procs[p]
	pr.sn = sn
	pr.ckpts = append(pr.ckpts, ckpt{id: pr.nextID, sn: sn, pos: pos})
	fx = append(fx, replay.Effect{Kind: replay.EffCheckpoint, Ckpt: pr.nextID, CkptType: typ, Sn: sn, Failure: failure})
	pr.nextID++
	return fx
}
