package pk

import (
	"slices"
	"sort"

	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// restart implements SPEC §5's restart of process i: record the
// announcements that arrived while down, restore the latest non-orphan
// checkpoint, replay from the stable log, announce the incarnation that
// ended with a token around the ring and hold until it returns, then
// handle the tokens recorded while down.
func (a *PK) restart(in *replay.Input, p *proc, fx []replay.Effect) []replay.Effect {
	i := int32(in.P)
	// Announcements that arrived while down are recorded first, so that
	// neither the restored checkpoint nor the replay keeps their orphans.
	for _, c := range in.Pending {
		if c.Control == trace.ControlToken && c.Body != nil {
			a.learn(p, c.Body, c.Failure)
		}
	}
	ci := latestClean(p)
	c := p.ckpts[ci]
	p.ckpts = p.ckpts[:ci+1]
	pos, li, sends, fresh := a.replay(i, p, c, in.Pos)
	// The log holds at most one entry per op: entries from pos on belong
	// to undone receives and would otherwise be replayed by a later
	// restart although their messages may since have become orphans.
	for k := li; k < len(p.receipts); k++ {
		a.unlive(&p.receipts[k])
	}
	p.receipts = p.receipts[:li]
	p.stable = li
	// The sends the replay ran for the first time are live sends like
	// the others: a token recorded while down may have to resend them.
	a.truncSends(p, pos)
	for _, s := range fresh {
		a.addSend(p, s)
	}

	// The announcement names the incarnation that ended; recording it
	// here lets this process judge messages of its new incarnation that
	// come back to it.
	ann := Announcement{P: i, Inc: p.inc, K: pos}
	a.failSeq[[2]int32{i, p.inc}] = in.Failure
	p.known.Add(ann)
	a.line.all.Add(ann)
	if p.inc == 0 {
		k, _ := slices.BinarySearch(a.restarted, i)
		a.restarted = slices.Insert(a.restarted, k, i)
	}
	p.inc++
	p.clock.own = trace.VTEntry{Inc: p.inc, Count: pos}
	fx = append(fx, replay.Effect{Kind: replay.EffRestart, Ckpt: c.id, Pos: pos, Inc: p.inc, Resend: true,
		Sends: sends, Failure: in.Failure})

	// The token goes to the ring successor, which on a ring of one is
	// the process itself (SPEC §5: it holds until its token returns,
	// control_delay later).
	body := trace.NewControlBody()
	body.Origin, body.Inc, body.K = i, ann.Inc, ann.K
	body.Receipts = a.log.view(p.top())
	fx = append(fx, replay.Effect{Kind: replay.EffControl, To: replay.Proc((i + 1) % a.n), Control: trace.ControlToken,
		Body: &body, Failure: in.Failure}, replay.Effect{Kind: replay.EffHoldProcess})
	p.held = true

	// Tokens recorded while down are handled now, in arrival order.
	for _, c := range in.Pending {
		if c.Control == trace.ControlToken && c.Body != nil {
			fx = a.token(i, p, c.Body, c.Failure, fx)
		}
	}
	return fx
}

// replay re-executes process i from checkpoint c in program order,
// instantly, taking receives from the stable log and stopping before the
// first receive whose message is not in the stable log or is an orphan,
// or at the end of the program. It returns where it stops (pos), the
// index of the first log entry it did not replay, and for the sends it
// runs for the first time (from crash, i's position when it failed, on)
// their piggybacks and their records.
func (a *PK) replay(i int32, p *proc, c ckpt, crash int32) (pos int32, li int, sends []replay.SendPB, fresh []sent) {
	p.clock.restore(c.vt, trace.VTEntry{Inc: p.inc, Count: c.pos})
	prog := a.prog[i]
	li = sort.Search(len(p.receipts), func(k int) bool { return p.receipts[k].op >= c.pos })
	for pos = c.pos; int(pos) < len(prog); pos++ {
		o := prog[pos]
		if o.kind == trace.Recv {
			if li >= len(p.receipts) || p.receipts[li].op != pos || p.known.Orphan(p.receipts[li].pb) {
				break
			}
			p.clock.receive(p.receipts[li].pb)
			li++
		}
		p.clock.own = trace.VTEntry{Inc: p.inc, Count: pos + 1}
		if o.kind == trace.Send && pos >= crash {
			pb := trace.NewPiggyback()
			pb.VT = p.clock.vector()
			sends = append(sends, replay.SendPB{Op: pos, PB: pb})
			fresh = append(fresh, sent{op: pos, msg: o.msg, to: o.to, inc: p.inc})
		}
	}
	return pos, li, sends, fresh
}

// learn records a token's announcement at p.
func (a *PK) learn(p *proc, b *trace.ControlBody, failure replay.Seq) Announcement {
	ann := Announcement{P: b.Origin, Inc: b.Inc, K: b.K}
	if ann.P >= 0 && ann.P < a.n && ann.Inc >= 0 {
		if a.failure(ann.P, ann.Inc) == 0 {
			a.failSeq[[2]int32{ann.P, ann.Inc}] = failure
		}
		p.known.Add(ann)
		// A no-op in a replay, where every announcement comes from a
		// restart this value ran; a token made by hand (tests) is
		// respected by the line from now on.
		a.line.all.Add(ann)
	}
	return ann
}
