// Package coordinated implements blocking two-phase coordinated
// checkpointing as a pure state machine driven by the replay engine
// (replay.Algorithm): the baseline against which communication-induced
// protocols are judged. The two phases are Koo and Toueg's ("Checkpointing
// and rollback-recovery for distributed systems", IEEE TSE 13(1), 1987),
// with every process taking part in every round; blocking stops each
// process's computation from its checkpoint until the round commits, as
// in the blocking protocol of Elnozahy, Alvisi, Wang and Johnson's survey
// (ACM CSUR 34(3), 2002, §4.2).
//
// The initiator is the process with the most ticks in the trace (the
// first in process order among equals; Initiator): a real log may give
// its first process no timer at all, and a coordinator without ticks
// starts no round. Its tick starts round r when no round is in
// progress: it checkpoints, stops, and sends a
// request to every other process; each one, on the request, checkpoints,
// stops and acknowledges; when every acknowledgement is in, the
// initiator sends a commit to every other process and resumes; each one
// resumes on the commit. Control messages (kinds request, ack, commit)
// take control_delay; the holds are written as `block` events. Every
// round checkpoint is numbered r and typed basic: a round is the
// protocol's basic checkpoint, and it forces none. The other ticks are
// skipped. A message sent after its sender resumed is received after the
// receiver's round checkpoint (whose acknowledgement preceded the
// commit), so every round's checkpoints form a consistent global
// checkpoint. The cost is 3(n−1) control messages and 2·control_delay of
// blocked time per process and round. Recovery is not implemented
// (the registry, package algorithms, refuses a trace with a failure).
// docs/protocols.md gives the decisions.
package coordinated

import (
	"slices"

	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// Name is the algorithm's name in runs.
const Name = "coordinated"

// Initiator returns the process whose ticks start rounds: the one with
// the most ticks (checkpoint events) in tr, the first in process order
// among equals, and the first process when none has any. Rounds then
// come as often as the busiest checkpoint timer of the trace asks for
// them; the first process, the obvious choice, has no timer at all in
// real logs such as ShiViz's chord (docs/protocols.md).
func Initiator(tr *trace.Trace) replay.Proc {
	ticks := make([]int, len(tr.Processes))
	for i := range tr.Events {
		if e := &tr.Events[i]; e.Kind == trace.Checkpoint && e.P >= 0 && int(e.P) < len(ticks) {
			ticks[e.P]++
		}
	}
	if len(ticks) == 0 {
		return 0
	}
	return replay.Proc(slices.Index(ticks, slices.Max(ticks)))
}

// Coordinated is the state machine for every process of a trace.
type Coordinated struct {
	init   replay.Proc // the initiator
	round  int32       // rounds started so far
	acks   int         // acknowledgements of the current round
	joined []int32     // per process: the round of its latest checkpoint
	// busy[p]: p checkpointed in a round that has not committed for it;
	// it is held.
	busy []bool
	// bodies[r-1] is the body every control message of round r carries,
	// made once per round: control messages are the hot path.
	bodies []*trace.ControlBody
}

// New returns the state machine for tr, which has no failure (the
// registry, package algorithms, refuses one).
func New(tr *trace.Trace) *Coordinated {
	n := len(tr.Processes)
	return &Coordinated{init: Initiator(tr), joined: make([]int32, n), busy: make([]bool, n)}
}

// Name implements replay.Algorithm.
func (a *Coordinated) Name() string { return Name }

// Step implements replay.Algorithm.
func (a *Coordinated) Step(in *replay.Input, fx []replay.Effect) []replay.Effect {
	p := in.P
	switch in.Kind {
	case replay.InTick:
		switch {
		case in.Down:
		case p == a.init && !a.busy[p]:
			fx = a.start(fx)
		case p == a.init:
			fx = append(fx, replay.Effect{Kind: replay.EffSkip, Sn: a.joined[p], Reason: trace.ReasonInRound})
		default:
			fx = append(fx, replay.Effect{Kind: replay.EffSkip, Sn: a.joined[p], Reason: trace.ReasonNotInitiator})
		}
	case replay.InSend:
		fx = append(fx, replay.Effect{Kind: replay.EffPiggyback, PB: trace.NewPiggyback()})
	case replay.InRecv:
		fx = append(fx, replay.Effect{Kind: replay.EffDeliver})
	case replay.InControl:
		if in.Body == nil {
			break
		}
		switch in.Control {
		case trace.ControlRequest:
			fx = a.join(p, in.Body.Count, fx)
		case trace.ControlAck:
			if p == a.init {
				fx = a.ack(in.Body.Count, fx)
			}
		case trace.ControlCommit:
			fx = a.commit(p, in.Body.Count, fx)
		}
	}
	return fx
}

// start begins a new round at the initiator.
func (a *Coordinated) start(fx []replay.Effect) []replay.Effect {
	a.round++
	fx = a.checkpoint(a.init, a.round, fx)
	if len(a.busy) == 1 {
		return fx // nobody to wait for
	}
	a.busy[a.init], a.acks = true, 0
	fx = append(fx, hold)
	return a.broadcast(trace.ControlRequest, fx)
}

// hold stops a process from its round checkpoint to the commit; the run
// records it as a `block` event, so blocked time is read from the run.
var hold = replay.Effect{Kind: replay.EffHoldProcess, Until: "commit"}

// ack counts an acknowledgement at the initiator; the last one commits.
func (a *Coordinated) ack(round int32, fx []replay.Effect) []replay.Effect {
	if round != a.round || !a.busy[a.init] {
		return fx
	}
	a.acks++
	if a.acks < len(a.busy)-1 {
		return fx
	}
	a.busy[a.init] = false
	fx = a.broadcast(trace.ControlCommit, fx)
	return append(fx, replay.Effect{Kind: replay.EffResume})
}

// join handles the initiator's request at p: the round's checkpoint, the
// hold, the acknowledgement. A request p has answered already (or one
// reaching the initiator) changes nothing.
func (a *Coordinated) join(p replay.Proc, round int32, fx []replay.Effect) []replay.Effect {
	if p == a.init || a.busy[p] || round <= a.joined[p] {
		return fx
	}
	a.busy[p] = true
	fx = a.checkpoint(p, round, fx)
	fx = append(fx, hold)
	return append(fx, a.control(trace.ControlAck, a.init, round))
}

// commit ends p's part in the round: it resumes.
func (a *Coordinated) commit(p replay.Proc, round int32, fx []replay.Effect) []replay.Effect {
	if p == a.init || !a.busy[p] || round != a.joined[p] {
		return fx
	}
	a.busy[p] = false
	return append(fx, replay.Effect{Kind: replay.EffResume})
}

// broadcast sends the current round's request or commit from the
// initiator to every other process.
func (a *Coordinated) broadcast(kind trace.Control, fx []replay.Effect) []replay.Effect {
	for q := range a.busy {
		if replay.Proc(q) != a.init {
			fx = append(fx, a.control(kind, replay.Proc(q), a.round))
		}
	}
	return fx
}

// control is a control message of the given kind (request, ack or
// commit) of round r to `to`; its body names the round (origin: the
// initiator, count: the round).
func (a *Coordinated) control(kind trace.Control, to replay.Proc, r int32) replay.Effect {
	for int32(len(a.bodies)) < r {
		b := trace.NewControlBody()
		b.Origin, b.Count = int32(a.init), int32(len(a.bodies))+1
		a.bodies = append(a.bodies, &b)
	}
	e := replay.Effect{Kind: replay.EffControl, Control: kind, To: to}
	if r >= 1 {
		e.Body = a.bodies[r-1]
	}
	return e
}

// checkpoint takes p's checkpoint of round r, its id r: p takes part in
// every round, and a round starts only once the previous one has all its
// checkpoints.
func (a *Coordinated) checkpoint(p replay.Proc, r int32, fx []replay.Effect) []replay.Effect {
	a.joined[p] = r
	return append(fx, replay.Effect{Kind: replay.EffCheckpoint, Ckpt: r, CkptType: trace.CkptBasic, Sn: r})
}
