package pk

import (
	"sort"

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
	if p.known.Orphan(p.vt) {
		fx = a.rollback(j, p, failure, fx)
	}
	// Resend every live send to the announcer that its recovered state
	// lacks; the engine repeats the send's copy with its piggyback.
	for k := range p.sends {
		s := &p.sends[k]
		if s.to != ann.P || hasIdentity(b.Received, s.msg, s.inc) {
			continue
		}
		fx = append(fx, replay.Effect{Kind: replay.EffResend, Op: s.op, Failure: failure})
	}
	fw := *b
	return append(fx, replay.Effect{Kind: replay.EffControl, To: replay.Proc((j + 1) % a.n),
		Control: trace.ControlToken, Body: &fw, Failure: failure})
}

func hasIdentity(ids []trace.Identity, msg, inc int32) bool {
	k := sort.Search(len(ids), func(x int) bool { return ids[x].Msg >= msg })
	for ; k < len(ids) && ids[k].Msg == msg; k++ {
		if ids[k].Inc == inc {
			return true
		}
	}
	return false
}
