package ms

import (
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// The textbook variant (SPEC §4.2 "textbook variant"): the seed's rules
// literally, with one scalar incarnation inc and recovery line rec_line.

// adopt takes incarnation inc with recovery line r at p if it is newer
// than p's, reporting whether it was.
func (a *MS) adopt(p replay.Proc, inc, r int32, failure replay.Seq) bool {
	pr := &a.procs[p]
	if inc <= pr.inc {
		return false
	}
	pr.inc, pr.recLine = inc, r
	if _, ok := a.incFailure[inc]; !ok {
		a.incFailure[inc] = failure
	}
	return true
}

// staleTextbook: M is stale iff M.inc < inc and M.sn ≥ rec_line.
func (a *MS) staleTextbook(p replay.Proc, pb *trace.Piggyback) (bool, replay.Seq) {
	pr := &a.procs[p]
	if pb.Inc < pr.inc && pb.Sn >= pr.recLine {
		return true, a.incFailure[pr.inc]
	}
	return false, 0
}

// recvTextbook judges a copy: a message with a higher inc is adopted and
// applied first (cause "message"), as a Rollback would be; a stale copy
// is discarded; else it is delivered.
func (a *MS) recvTextbook(in *replay.Input, fx []replay.Effect) []replay.Effect {
	p := in.P
	pb := in.PB
	if pb.Inc > a.procs[p].inc {
		body := trace.ControlBody{Count: pb.Inc, R: pb.RecLine}
		var moved bool
		fx, moved, _ = a.apply(p, in.Pos, &body, a.incFailure[pb.Inc], trace.CauseMessage, fx)
		if moved {
			return fx
		}
	}
	if bad, failure := a.stale(p, pb); bad {
		return a.discardStale(in, failure, fx)
	}
	return a.deliver(in, fx)
}
