package ms

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// Receipt of a copy (SPEC §4.2 "Receipt of a copy M by P_j").

// recv judges copy in.Copy for receive op in.Op: hold a message from the
// future (case 1; textbook: first adopt a newer incarnation, adoptFrom),
// discard a stale one (case 2), else deliver.
func (a *MS) recv(in *replay.Input, fx []replay.Effect) []replay.Effect {
	var done bool
	if a.textbook {
		fx, done = a.adoptFrom(in, fx)
	} else {
		fx, done = a.holdFuture(in, fx)
	}
	if done {
		return fx
	}
	// Case 2: a delayed message is valid iff sent before every line. A
	// stale replayed copy's log entry goes with it.
	if bad, failure := a.stale(in.P, in.PB); bad {
		if in.Via == trace.ViaLog {
			a.dropLog(in.P, in.Op)
		}
		return append(fx, replay.Effect{Kind: replay.EffDiscard, Reason: trace.ReasonStale, Failure: failure})
	}
	return a.deliver(in, fx)
}

// holdFuture holds a message from the future (case 1) until the
// Rollback requests of the recoveries its F names come, reporting
// whether it did.
func (a *MS) holdFuture(in *replay.Input, fx []replay.Effect) ([]replay.Effect, bool) {
	pr := &a.procs[in.P]
	for _, e := range in.PB.F {
		if have := fget(pr.f, e.P); e.Count > have {
			return append(fx, replay.Effect{Kind: replay.EffHold,
				Until:   fmt.Sprintf("rollback(%s,%d)", a.names[e.P], have+1),
				Failure: a.recs[e.P][have].failure}), true
		}
	}
	return fx, false
}

// stale reports whether a message with piggyback pb is invalid for the
// recoveries p has applied: p applied some (o, c, r) its sender had not
// and pb.Sn ≥ r. It returns that recovery's failure.
func (a *MS) stale(p replay.Proc, pb *trace.Piggyback) (bool, replay.Seq) {
	if a.textbook {
		return a.staleTextbook(p, pb)
	}
	for _, e := range a.procs[p].f {
		m := fget(pb.F, e.P)
		for c := m + 1; c <= e.Count; c++ {
			if rec := a.recs[e.P][c-1]; pb.Sn >= rec.r {
				return true, rec.failure
			}
		}
	}
	return false, 0
}

// deliver applies the checkpoint and logging rules to a valid message:
// a forced checkpoint first if M.sn > sn, a log entry first if M.sn < sn.
func (a *MS) deliver(in *replay.Input, fx []replay.Effect) []replay.Effect {
	p := in.P
	pr := &a.procs[p]
	pb := in.PB
	switch {
	case pb.Sn > pr.sn:
		fx = a.checkpoint(p, in.Pos, pb.Sn, trace.CkptForced, 0, fx)
	case pb.Sn < pr.sn:
		// A replayed receipt's entry is already in the log.
		if in.Via == trace.ViaNet {
			a.addLog(p, logEntry{op: in.Op, copy: in.Copy, pb: *pb})
			fx = append(fx, replay.Effect{Kind: replay.EffLog, Copy: in.Copy, Op: in.Op})
		}
	}
	return append(fx, replay.Effect{Kind: replay.EffDeliver})
}
