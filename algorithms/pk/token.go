package pk

import (
	"slices"

	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// token handles a token at process j (up, possibly held), SPEC §5 "Token
// at P_j": its own newest token resumes it; another's announcement is
// recorded, the orphan suffix rolled back, the sends the announcer's
// recovered state lacks resent, and the token forwarded.
func (a *PK) token(j int32, p *proc, b *trace.ControlBody, failure replay.Seq, fx []replay.Effect) []replay.Effect {
	if b.Origin == j {
		// Only the newest own token ends the hold: an older one returning
		// belongs to an incarnation that has failed again since.
		if p.held && b.Inc == p.inc-1 {
			p.held = false
			fx = append(fx, replay.Effect{Kind: replay.EffResume})
		}
		return fx
	}
	ann := a.learn(p, b, failure)
	if p.clock.orphanOf(p.known) {
		fx = a.rollback(j, p, failure, fx)
	}
	// Resend every live send to the announcer that its recovered state
	// lacks; the engine repeats the send's copy with its piggyback.
	for _, op := range a.lacking(j, p, b, ann.P) {
		fx = append(fx, replay.Effect{Kind: replay.EffResend, Op: op, Failure: failure})
	}
	// Bodies are immutable: the token goes on with the body it came
	// with, which lets the engine keep one copy of it in the run.
	return append(fx, replay.Effect{Kind: replay.EffControl, To: replay.Proc((j + 1) % a.n),
		Control: trace.ControlToken, Body: b, Failure: failure})
}

// lacking returns, in op order, the ops of j's live sends to the
// announcer i whose identities the token's received set lacks.
func (a *PK) lacking(j int32, p *proc, b *trace.ControlBody, i int32) []int32 {
	bv, ok := b.Receipts.(*receiptView)
	if !ok || i < 0 || i >= a.n {
		// Not a set a PK restart made (a token made by hand, in tests):
		// it holds nothing this PK can look up, so it lacks every send.
		var ops []int32
		for k := range p.sends {
			if s := &p.sends[k]; s.to == i {
				ops = append(ops, s.op)
			}
		}
		return ops
	}
	// The view is read in this PK's own log: a clone's copy of the log
	// it was made in holds the same nodes up to the view's moment, and
	// the nodes it compares with are this PK's (clone.go).
	v := receiptView{log: &a.log, top: bv.top, at: bv.at}
	// A send the set lacks is either unmatched now (outstanding), or
	// matched by a receipt the announcer made after its restart (on top
	// of its stack); every other one the set holds.
	ms := a.out.list(j, i, a.scratch[:0])
	rs := a.procs[i].receipts
	for k := len(rs) - 1; k >= 0 && v.after(rs[k].node); k-- {
		if m := rs[k].msg; rs[k].from == j && m >= 0 && int(m) < len(a.sendInc) && a.sendInc[m] != trace.None {
			ms = append(ms, m)
		}
	}
	a.scratch = ms
	var ops []int32
	for _, m := range ms {
		if !v.HasIdentity(trace.Identity{Msg: m, Inc: a.sendInc[m]}) {
			ops = append(ops, a.sendOp[m])
		}
	}
	slices.Sort(ops)
	return ops
}
