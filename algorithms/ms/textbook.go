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

// adoptFrom adopts and applies a message's higher inc before judging it
// (cause "message"), as a Rollback would be, and reports whether p
// rolled back: the copy is then no longer judged.
func (a *MS) adoptFrom(in *replay.Input, fx []replay.Effect) ([]replay.Effect, bool) {
	pb := in.PB
	if pb.Inc <= a.procs[in.P].inc {
		return fx, false
	}
	body := trace.ControlBody{Count: pb.Inc, R: pb.RecLine}
	fx, moved, _ := a.apply(in.P, in.Pos, &body, a.incFailure[pb.Inc], trace.CauseMessage, fx)
	return fx, moved
}
