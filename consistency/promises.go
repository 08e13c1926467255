package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// What each algorithm promises of its checkpoints, and so which of the
// properties about the final checkpoint pattern its runs are judged on
// (docs/checker.md, "What each algorithm promises"). A property an
// algorithm does not promise is n/a; for a foreign algorithm, whose
// promises the checker cannot know, it is unknown.

// promise is a property of the final checkpoint and message pattern.
type promise uint8

const (
	// noUseless: no checkpoint on a Z-cycle (z-cycle-free).
	noUseless promise = 1 << iota
	// trackable: every Z-path causally doubled (rdt). It implies
	// noUseless (a Z-cycle is a Z-path no causal path can double).
	trackable
	// snConsistent: every S_n line consistent (sn-lines).
	snConsistent
)

// known is what the checker knows of each of ckpt's algorithms, by
// history.Alg, in one table: the name because-chains and notes give it,
// what it promises of its checkpoints, and what its runs carry (its
// piggyback fields, which it must and may send, and its control
// messages: SPEC §6, docs/formats.md; MS's f may be empty, which the
// format cannot tell from absent). Coordinated checkpointing promises
// that every round is a consistent global checkpoint: its round-r
// checkpoints are numbered r (S_r is the round) and, every checkpoint
// being in a round, none is useless. A foreign algorithm's entry is
// empty: nothing is promised, nothing judged.
var known = [...]struct {
	name    string
	promise promise
	shape   shape
}{
	history.Foreign:     {},
	history.MS:          {"MS", noUseless | snConsistent, shape{must: pbSn, may: pbSn | pbF, controls: rollbacks, ckpts: msCkpts, skips: msSkips, logs: true}},
	history.Textbook:    {"MS's textbook variant", noUseless | snConsistent, shape{must: pbSn | pbInc | pbRecLine, may: pbSn | pbInc | pbRecLine, controls: rollbacks, ckpts: msCkpts, skips: msSkips, logs: true}},
	history.PK:          {"PK", 0, shape{must: pbVT, may: pbVT, controls: []trace.Control{trace.ControlToken}, ckpts: ticks, skips: down, logs: true}},
	history.BCS:         {"BCS", noUseless | snConsistent, shape{must: pbLC, may: pbLC, ckpts: placed, skips: down}},
	history.FDAS:        {"FDAS", noUseless | trackable, shape{must: pbDV, may: pbDV, ckpts: placed, skips: down}},
	history.HMNR:        {"HMNR", noUseless, shape{must: pbLC | pbCkpt | pbTaken | pbGreater, may: pbLC | pbCkpt | pbTaken | pbGreater, ckpts: placed, skips: down}},
	history.Coordinated: {"coordinated checkpointing", noUseless | snConsistent, shape{controls: []trace.Control{trace.ControlRequest, trace.ControlAck, trace.ControlCommit}, ckpts: ticks, skips: rounds}},
}

// What the algorithms' runs hold besides piggybacks and control messages
// (docs/formats.md): MS numbers its checkpoints by ticks, forces some and
// takes one to apply a recovery, and skips a tick that its number does
// not exceed (no reason) or that comes while it is down; PK and
// coordinated checkpointing take basic checkpoints only, and the
// placement protocols forced ones beside; coordinated checkpointing skips
// the ticks that start no round. Only a foreign run writes `initial`.
var (
	rollbacks = []trace.Control{trace.ControlRollback}
	msCkpts   = []trace.CkptType{trace.CkptBasic, trace.CkptForced, trace.CkptRecovery}
	ticks     = []trace.CkptType{trace.CkptBasic}
	placed    = []trace.CkptType{trace.CkptBasic, trace.CkptForced}
	msSkips   = []trace.Reason{trace.ReasonNone, trace.ReasonDown}
	down      = []trace.Reason{trace.ReasonDown}
	rounds    = []trace.Reason{trace.ReasonDown, trace.ReasonNotInitiator, trace.ReasonInRound}
)

// algName names the run's algorithm in because-chains and notes.
func algName(m *history.Model) string {
	if m.Alg == history.Foreign || int(m.Alg) >= len(known) {
		return fmt.Sprintf("%q", m.Run.Algorithm)
	}
	return known[m.Alg].name
}

// promised sets r's standing for promise p and reports whether the run's
// algorithm makes it: n/a (with why) if a known algorithm does not,
// unknown if the algorithm is foreign.
func promised(m *history.Model, r *result, p promise) bool {
	switch {
	case m.Alg == history.Foreign:
		r.cannotJudge(foreignPromiseWhy(m, p))
		return false
	case int(m.Alg) >= len(known) || known[m.Alg].promise&p == 0:
		r.notApplicable(unpromisedWhy(m, p))
		return false
	}
	return true
}

// foreignPromiseWhy says why promise p is unknown for a foreign run.
func foreignPromiseWhy(m *history.Model, p promise) string {
	switch p {
	case noUseless:
		return fmt.Sprintf("foreign algorithm %q: whether it promises no useless checkpoints is unknown; see stats.checkpoints.useless", m.Run.Algorithm)
	case trackable:
		return fmt.Sprintf("foreign algorithm %q: whether it promises rollback-dependency trackability is unknown", m.Run.Algorithm)
	}
	return fmt.Sprintf("foreign algorithm %q numbers no S_n lines the checker can rely on", m.Run.Algorithm)
}

// unpromisedWhy says why a known algorithm does not promise p.
func unpromisedWhy(m *history.Model, p promise) string {
	switch {
	case m.Alg == history.PK && p == noUseless:
		return "PK checkpoints are uncoordinated and may be useless; see stats.checkpoints.useless"
	case m.Alg == history.PK && p == snConsistent:
		return "the S_n lines are MS's promise (PK numbers no checkpoints)"
	case m.Alg == history.PK:
		return "PK checkpoints are uncoordinated: they may be useless, so their dependencies need not be trackable"
	case m.Alg == history.FDAS:
		return "FDAS numbers no checkpoints (it tracks dependency vectors): it has no S_n lines"
	case m.Alg == history.HMNR && p == snConsistent:
		return "HMNR's lc is no BCS index (a receipt may raise it without a checkpoint), so its S_n lines need not be consistent; HMNR promises no useless checkpoint"
	case m.Alg == history.Coordinated:
		return "coordinated checkpointing promises consistent rounds, not trackable dependencies: a Z-path between rounds may have no causal double"
	}
	return fmt.Sprintf("%s promises no useless checkpoint, not trackable dependencies: a Z-path may have no causal double (FDAS promises rdt)", algName(m))
}

// recoveryKnown reports whether the checker knows the recovery rules of
// the run's algorithm (MS and PK), having set, when it does not, the
// standing of a recovery property (log-replay-rules, domino-free,
// minimal-rollback): for a checkpoint-placement protocol n/a on a
// failure-free run, where there is nothing to judge, and unknown on a run
// with failures, which the protocol cannot handle (replay refuses them),
// so that whatever recovered it follows rules the checker does not know;
// unknown for a foreign algorithm.
func recoveryKnown(m *history.Model, r *result) bool {
	switch {
	case m.Alg.Recovers():
		return true
	case !m.Alg.Places():
		r.cannotJudge(fmt.Sprintf("foreign algorithm %q: its logging, replay and rollback rules are unknown", m.Run.Algorithm))
	case len(m.Failures) == 0 && len(m.Restores) == 0:
		r.notApplicable(fmt.Sprintf("%s places checkpoints and has no recovery: its runs are failure-free (replay refuses traces with fail events), so there is no logging, replay or rollback to judge", algName(m)))
	default:
		r.cannotJudge(fmt.Sprintf("%s has no recovery, yet the run shows failures: whatever recovered them follows rules the checker does not know", algName(m)))
	}
	return false
}
