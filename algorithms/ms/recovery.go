package ms

import (
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// Recoveries (SPEC §4.2 "Failure of P_o", "Rollback(R) at P_j"). The
// textbook variant keeps one scalar incarnation instead of F; its
// differences are marked where they happen.

// restart restores p's latest checkpoint (number r), creates the
// recovery R = (p, F[p]+1, r), replays per the replay rule, sends
// Rollback(R) to every other process and then applies the requests that
// arrived while p was down, in arrival order.
func (a *MS) restart(in *replay.Input, fx []replay.Effect) []replay.Effect {
	p := in.P
	pr := &a.procs[p]
	c := pr.ckpts[len(pr.ckpts)-1]
	r := c.sn
	pr.sn = r
	body := trace.NewControlBody()
	body.Origin, body.R = int32(p), r
	e := replay.Effect{Kind: replay.EffRestart, Ckpt: c.id, Pos: c.pos, Failure: in.Failure}
	if a.textbook {
		pr.inc++
		pr.recLine = r
		a.incFailure[pr.inc] = in.Failure
		body.Count = pr.inc
		e.Inc = pr.inc
	} else {
		count := fget(pr.f, int32(p)) + 1
		pr.f = fset(pr.f, int32(p), count)
		a.recs[p] = append(a.recs[p], recovery{r: r, failure: in.Failure})
		body.Count = count
		// SPEC §6 gives every restart an inc; F[o] is what the seed's
		// incarnation number becomes in the generalisation (§4.2).
		e.Inc = count
	}
	e.Replay = a.replayLog(p, c.pos)
	fx = append(fx, e)
	for q := range a.procs {
		if replay.Proc(q) != p {
			fx = append(fx, replay.Effect{Kind: replay.EffControl, To: replay.Proc(q),
				Control: trace.ControlRollback, Body: &body, Failure: in.Failure})
		}
	}
	pos := c.pos
	for i := range in.Pending {
		m := &in.Pending[i]
		if m.Control == trace.ControlRollback && m.Body != nil {
			fx, _, pos = a.apply(p, pos, m.Body, m.Failure, trace.CauseRequest, fx)
		}
	}
	return fx
}

// apply applies recovery b (origin, count, r) at p, currently at pos,
// unless p has applied it already: a rollback to the earliest checkpoint
// numbered ≥ r if sn ≥ r, else a recovery checkpoint numbered r. It
// reports whether p rolled back and p's position afterwards.
func (a *MS) apply(p replay.Proc, pos int32, b *trace.ControlBody, failure replay.Seq, cause trace.Cause, fx []replay.Effect) ([]replay.Effect, bool, int32) {
	pr := &a.procs[p]
	if a.textbook {
		if !a.adopt(p, b.Count, b.R, failure) {
			return fx, false, pos
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
		return append(fx, replay.Effect{Kind: replay.EffRollback, Ckpt: c.id, Pos: c.pos, Cause: cause,
			Failure: failure, Replay: a.replayLog(p, c.pos)}), true, c.pos
	}
	return a.checkpoint(p, pos, r, trace.CkptRecovery, failure, fx), false, pos
}

// restoreFrom rolls p back to its earliest checkpoint numbered ≥ r,
// discarding the later ones, and returns it.
func (a *MS) restoreFrom(p replay.Proc, r int32) ckpt {
	pr := &a.procs[p]
	i := len(pr.ckpts) - 1
	for i > 0 && pr.ckpts[i-1].sn >= r {
		i--
	}
	pr.ckpts = pr.ckpts[:i+1]
	pr.sn = pr.ckpts[i].sn
	return pr.ckpts[i]
}
