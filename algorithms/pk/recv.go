package pk

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// Receipt of a copy (SPEC §5 "Receipt at P_j"): an orphan of a known
// announcement is discarded, so is a duplicate of a live receipt; a copy
// from an incarnation whose predecessor's end is unknown is held; else it
// is delivered and logged (volatile).

func (a *PK) recv(in *replay.Input, p *proc, fx []replay.Effect) []replay.Effect {
	var vt trace.VT
	if in.PB != nil {
		vt = in.PB.VT
	}
	if len(vt) != int(a.n) || in.Peer < 0 || int32(in.Peer) >= a.n {
		// A copy without a PK vector cannot be judged; taking it would
		// break every later orphan test, so it is dropped as an orphan.
		return append(fx, replay.Effect{Kind: replay.EffDiscard, Reason: trace.ReasonOrphan})
	}
	if q, inc, ok := p.known.OrphanWhy(vt); ok {
		return append(fx, replay.Effect{Kind: replay.EffDiscard, Reason: trace.ReasonOrphan, Failure: a.failure(q, inc)})
	}
	msg := int32(in.Msg)
	if msg >= 0 && int(msg) < len(a.liveInc) && a.liveInc[msg] == vt[in.Peer].Inc {
		return append(fx, replay.Effect{Kind: replay.EffDiscard, Reason: trace.ReasonDuplicate})
	}
	if q, inc, ok := p.known.MissingAmong(vt, a.restarted); ok {
		return append(fx, replay.Effect{Kind: replay.EffHold,
			Until:   fmt.Sprintf("announcement of %s's incarnation %d", a.names[q], inc),
			Failure: a.failure(q, inc)})
	}
	p.clock.receive(vt)
	p.clock.own = trace.VTEntry{Inc: p.inc, Count: in.Pos + 1}
	node := a.log.push(msg, vt[in.Peer].Inc, p.top())
	p.receipts = append(p.receipts, receipt{op: in.Op, msg: msg, from: int32(in.Peer), copy: in.Copy, node: node, pb: vt})
	if msg >= 0 && int(msg) < len(a.liveInc) {
		a.liveInc[msg] = vt[in.Peer].Inc
		a.listed(msg)
	}
	return append(fx, replay.Effect{Kind: replay.EffDeliver})
}
