package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// A protocol spec is an algorithm written once more, from SPEC §4–§5 and
// docs/ms.md, docs/pk.md, as a reference state machine the checker
// executes: the run's events step it once, in seq order, and each event
// is judged against what the spec allows in the state the earlier events
// left — porcupine's Model{Init, Step}, or TLA+ trace validation of a
// recorded trace against a spec's Next relation. An event the spec does
// not allow is a violation of log-replay-rules, explained in the spec's
// own terms; the spec then follows the run as it happened (it restores
// what the run restores) and judges on, so that one forgery is reported
// once and an independent one after it is reported too.
//
// spec_ms.go is MS (the default and the textbook variant), spec_pk.go PK.
// Each reads what happened — live histories, checkpoints, copies and
// mailboxes — from the history model being built (history.Builder), and
// keeps only the algorithm's own state: numbers, logs, vectors. It steps
// while the run streams (Stream.Add), so it reads a PK vector only while
// the event that carries it is added, and keeps the vectors it needs
// later itself (spec_pk_vectors.go).
type protocol interface {
	// prepare sees event seq before the model takes it: a restore's
	// target is judged against the checkpoints held before it.
	prepare(seq int32, e *trace.RunEvent)
	step(seq int32, e *trace.RunEvent)
	// finish judges what the end of the run leaves owed.
	finish()
	verdict() *result
}

// newProtocol returns the spec of the algorithm the run names, or nil
// when the checker knows no recovery rules for it.
func newProtocol(b *history.Builder, lookahead int32) protocol {
	f := &specFrame{b: b, m: b.Model(), res: newResult(report.LogReplayRules), instants: history.ReplayTimed(b.Model().Run)}
	switch f.m.Alg {
	case history.MS, history.Textbook:
		return newMSSpec(f)
	case history.PK:
		return newPKSpec(f, lookahead)
	}
	return nil
}

// specFrame is what both specs share: the model in the making, the
// verdict, and whether the run claims SPEC §3's timing.
type specFrame struct {
	b *history.Builder
	m *history.Model
	// res is log-replay-rules' verdict from the spec.
	res result
	// instants: the run records the params it was replayed with, so the
	// steps of one reaction (a request and the rollback it causes, a
	// forced checkpoint and its delivery) must share an instant.
	instants bool
	// mute stops judging once a field the spec needs is missing: the
	// property is then unknown (SPEC §6), never pass.
	mute bool
}

func (f *specFrame) verdict() *result { return &f.res }

// diverge records an event the spec does not allow.
func (f *specFrame) diverge(seqs []int32, msg, because string) {
	if !f.mute {
		f.res.failed(msg, seqs, because)
	}
}

// lacks makes the spec stop judging: the run lacks a field it needs.
func (f *specFrame) lacks(seq int32, what string) {
	if !f.mute {
		f.res.cannotJudge(fmt.Sprintf("the run lacks %s at seq %d, which %s always writes, so its rules cannot be judged from there on", what, seq, algName(f.m)))
		f.mute = true
	}
}

// numbered reports whether e carries the op and copy numbers the specs
// follow the run by (SPEC §6); a run without them is not judged further.
func (f *specFrame) numbered(seq int32, e *trace.RunEvent) bool {
	switch {
	case e.Kind.IsOp() && e.Op == history.None:
		f.lacks(seq, "an op number")
	case (e.Kind == trace.Send || e.Kind == trace.Recv || e.Kind == trace.Log || e.Kind == trace.Discard) && e.Copy <= 0:
		f.lacks(seq, "a copy number")
	}
	return !f.mute
}

// unsent notes a receipt of a copy no send transmitted (orphan-free's
// to report): what it carries cannot be judged, so the property is
// unknown unless it fails.
func (f *specFrame) unsent(seq int32) {
	f.res.cannotJudge(fmt.Sprintf("the %s at seq %d concerns a copy no send transmitted, so the piggyback it is judged by is unknown", f.m.Event(seq).Kind, seq))
}

// name names process p.
func (f *specFrame) name(p int32) string { return f.m.ProcName(p) }

// ev describes event seq for a because-chain: "P1's rollback at seq 9
// (t=1.5)".
func (f *specFrame) ev(seq int32) string {
	e := f.m.Event(seq)
	return fmt.Sprintf("%s's %s at seq %d (t=%s)", f.name(e.P), e.Kind, seq, e.T)
}

// sameInstant reports whether event e may complete a reaction that the
// event at seq started: in a run that claims SPEC §3's timing, a process
// reacts to an input at once, so both share an instant.
func (f *specFrame) sameInstant(seq int32, e *trace.RunEvent) bool {
	return !f.instants || f.m.Event(seq).T == e.T
}

// copyOf returns the index of the copy event e names, or -1.
func (f *specFrame) copyOf(e *trace.RunEvent) int32 { return f.m.Copies.Index(e.Msg, e.Copy) }

// liveCount returns p's live op count now.
func (f *specFrame) liveCount(p int32) int32 { return int32(len(f.b.Live(p))) }

// restored returns the checkpoint the restore at seq restored (an index
// into Taken, or None) and the head of the chain held just before it.
func (f *specFrame) restored(seq int32) (ck, latest int32) {
	rs := f.m.RestoreOf(seq)
	if rs == nil {
		return history.None, history.None
	}
	return rs.Restored, rs.Latest
}

// bodyFits reports whether every number control body b writes is want's.
func bodyFits(b, want *trace.ControlBody) bool {
	fits := func(got, w int32) bool { return got == history.None || got == w }
	return fits(b.Origin, want.Origin) && fits(b.Count, want.Count) && fits(b.R, want.R) && fits(b.Inc, want.Inc) && fits(b.K, want.K)
}
