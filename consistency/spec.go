package consistency

import (
	"fmt"
	"strings"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// The checker judges a run, as it streams, against specifications it
// executes: reference state machines that the run's events step once, in
// seq order, each event judged against what the spec allows in the state
// the earlier events left — porcupine's Model{Init, Step}, or TLA+ trace
// validation of a recorded trace against a spec's Next relation. An
// event the spec does not allow is a violation, explained in the spec's
// own terms (Elle-style, "because …"). The run spec reports each; a
// protocol spec reports its first divergence only, then follows the run
// as it happened for what other properties read of it.
//
// Every run conforms to the run spec (spec_run*.go): the form any
// algorithm's run keeps (SPEC §3, §6) — op continuity, copies sent
// before they are taken, restarts after fails, control messages that
// arrive once, the source trace's environment and times. A run of MS or
// PK conforms also to that algorithm's protocol spec (spec_ms*.go,
// spec_pk*.go), which refines it with the algorithm's rules. The specs
// read what happened — live histories, checkpoints, copies and
// mailboxes — from the history model being built (history.Builder) and
// keep only their own state.
type protocol interface {
	// prepare sees event seq, of a process of the run, before the model
	// takes it: a restore's target is judged against the checkpoints held
	// before it.
	prepare(seq int32, e *trace.RunEvent)
	step(seq int32, e *trace.RunEvent)
	// finish judges what the end of the run leaves owed.
	finish()
}

// specFrame is what the specs share: the model in the making, the
// violations found so far per property, and whether the run claims SPEC
// §3's timing.
type specFrame struct {
	b *history.Builder
	m *history.Model
	// results are the streamed part of every property's verdict, in
	// report order (rules); res is log-replay-rules', the protocol
	// specs' own.
	results [len(ruleNames)]result
	res     *result
	// instants: the run claims SPEC §3's timing (replayTimed), so the
	// steps of one reaction (a request and the rollback it causes, a
	// forced checkpoint and its delivery) must share an instant.
	instants bool
	// mute stops the protocol spec once a field it needs is missing: the
	// property is then unknown (SPEC §6), never pass.
	mute bool
	// diverged: the protocol spec found the run's first divergence.
	diverged bool
}

func newSpecFrame(b *history.Builder) *specFrame {
	f := &specFrame{b: b, m: b.Model(), instants: replayTimed(b.Model().Run)}
	for i, n := range ruleNames {
		f.results[i] = newResult(n)
	}
	f.res = &f.results[logReplayAt]
	return f
}

// replayTimed reports whether run claims SPEC §3's timing: a replay (no
// options.timing) that records the params it was replayed with, as every
// run ckpt replays does. A recorded run keeps its system's times, another
// implementation's its own network's, and a hand-made one may leave them
// out (docs/checker.md, "Recorded runs").
func replayTimed(run *trace.Run) bool {
	p := &run.Options.Params
	return run.Options.Timing == "" && p.RestartDelay > 0 && p.ControlDelay > 0 && p.DefaultDelay > 0
}

// badf records a violation of the property at index at, at seqs: the
// text format and args make gives the message and the because-chain
// split at the first newline; a text without one breaks only the run's
// form (the because-chain is notWellFormed(message)), and a second part
// that starts with "+" is appended to the message in it. Only the
// witnesses kept are formatted: a broken run can fail a rule at every
// event, and past the cap a violation costs the boxing of its arguments.
func (f *specFrame) badf(at int, seqs []int32, format string, args ...any) {
	if r := &f.results[at]; r.counted() {
		msg, because := splitWitness(fmt.Sprintf(format, args...))
		r.keep(msg, seqs, because)
	}
}

func splitWitness(s string) (string, string) {
	msg, because, ok := strings.Cut(s, "\n")
	switch {
	case !ok:
		return msg, notWellFormed(msg)
	case strings.HasPrefix(because, "+"):
		return msg, notWellFormed(msg + because[1:])
	}
	return msg, because
}

// notWellFormed is the because-chain of a violation that only says the
// run breaks its own format.
func notWellFormed(msg string) string { return "the run is not well formed: " + msg }

// divergef records the first event the protocol spec does not allow,
// its text as badf's; later ones are not judged (the spec
// follows the run on, for what other properties read of it: restore
// targets, requeues).
func (f *specFrame) divergef(seqs []int32, format string, args ...any) {
	if !f.mute && !f.diverged {
		f.diverged = true
		msg, because := splitWitness(fmt.Sprintf(format, args...))
		f.res.failed(msg, seqs, because)
	}
}

// badDiscard reports discard e at seq of copy ci, if why says what is
// wrong with it (names adds to the message).
func (f *specFrame) badDiscard(seq, ci int32, e *trace.RunEvent, names, why string) {
	if why != "" {
		f.divergef([]int32{f.m.Copies.Send[ci], seq}, "%s discards copy %d of %s at seq %d as %s%s\n%s", f.name(e.P), e.Copy, f.m.MsgName(e.Msg), seq, e.Reason, names, why)
	}
}

// lacks makes the protocol spec stop judging: the run lacks a field it
// needs.
func (f *specFrame) lacks(seq int32, what string) {
	if !f.mute {
		f.res.cannotJudge(fmt.Sprintf("the run lacks %s at seq %d, which %s always writes, so its rules cannot be judged from there on", what, seq, algName(f.m)))
		f.mute = true
	}
}

// numbered reports whether e carries the op and copy numbers, and a
// restore's checkpoint and position (a negative one is none: the model
// announces no PK restart from it), the specs follow the run by (SPEC
// §6), and the spec still judges: a run without them is not judged
// further.
func (f *specFrame) numbered(seq int32, e *trace.RunEvent) bool {
	switch {
	case e.Kind.IsOp() && e.Op == history.None:
		f.lacks(seq, "an op number")
	case (e.Kind == trace.Send || e.Kind == trace.Recv || e.Kind == trace.Log || e.Kind == trace.Discard) && e.Copy <= 0:
		f.lacks(seq, "a copy number")
	case e.Kind == trace.Restart && (e.Restore == history.None || e.Pos < 0):
		f.lacks(seq, "a restart's restore or pos")
	case e.Kind == trace.Rollback && (e.Restore == history.None || e.Pos < 0 || e.Failure == history.None):
		f.lacks(seq, "a rollback's restore, pos or failure")
	}
	return !f.mute
}

// unrecovered returns why a discard cannot name failure seq fs as the
// recovery that makes its copy stale or an orphan (made: its restart has
// made that recovery), or "".
func (f *specFrame) unrecovered(fs int32, made bool) string {
	switch _, ok := f.m.FailureAt(fs); {
	case !ok && fs >= int32(len(f.m.Pred)): // Pred holds the events up to this one
		return fmt.Sprintf("failure seq %d has made no recovery yet: it comes later", fs)
	case !ok:
		return fmt.Sprintf("the run has no effective fail event at seq %d", fs)
	case !made:
		return fmt.Sprintf("failure seq %d has made no recovery yet", fs)
	}
	return ""
}

// name names process p.
func (f *specFrame) name(p int32) string { return f.m.ProcName(p) }

// ev describes event seq for a because-chain: "P1's rollback at seq 9
// (t=1.5)".
func (f *specFrame) ev(seq int32) string {
	e := f.m.Event(seq)
	return fmt.Sprintf("%s's %s at seq %d (t=%s)", f.name(e.P), e.Kind, seq, e.T)
}

// next says what a process that owes a duty did instead: its event at
// seq (None: it has no further event).
func (f *specFrame) next(seq int32) string {
	switch {
	case seq == history.None:
		return "it has no further event"
	case f.m.Event(seq).Kind.IsOp():
		return "its next event is " + f.m.Describe(seq)
	}
	return "its next event is " + f.ev(seq)
}

// sameInstant reports whether event e may complete a reaction that the
// event at seq started: in a run that claims SPEC §3's timing, a process
// reacts to an input at once, so both share an instant.
func (f *specFrame) sameInstant(seq int32, e *trace.RunEvent) bool {
	return !f.instants || f.m.Event(seq).T == e.T
}

// restored records want (None: nowhere) as the checkpoint, by index in
// Taken, that the restore at seq must restore, and returns the one it
// restored: want if it restored none the process took, which diverges
// when the restore names one (a restore naming none is the run spec's).
func (f *specFrame) restored(seq, want int32) int32 {
	rs := f.m.RestoreOf(seq)
	if rs.Want = want; want == history.None {
		rs.Want = history.Nowhere
	}
	if rs.Restored == history.None {
		if e := f.m.Event(seq); e.Restore != history.None {
			f.divergef([]int32{seq}, "%s's %s at seq %d restores checkpoint %d, which it never took\n%s restores a checkpoint its process took, and numbers or replays its recovery by it",
				f.name(e.P), e.Kind, seq, e.Restore, algName(f.m))
		}
		return want
	}
	return rs.Restored
}

// restoredOther reports that the restart or rollback e at seq restored
// checkpoint ck (an index in Taken), not want, the one the protocol's
// rule restores; rule says which that is.
func (f *specFrame) restoredOther(seq int32, e *trace.RunEvent, ck, want int32, rule string) {
	taken := f.b.Taken(e.P)
	f.divergef([]int32{taken[ck].Seq, seq}, "%s's %s at seq %d restores checkpoint %d, not checkpoint %d\n%s, which for %[1]s at seq %[3]d is checkpoint %[5]d (%[7]s), but the %[2]s restored checkpoint %[4]d (%[8]s)",
		f.name(e.P), e.Kind, seq, taken[ck].ID, taken[want].ID, rule, f.where(taken[want]), f.where(taken[ck]))
}

// where places checkpoint c for a witness: its sn too for MS, whose
// rules are about numbers, and its pos.
func (f *specFrame) where(c history.Ckpt) string {
	if !f.m.Alg.IsMS() {
		return fmt.Sprintf("pos %d", c.Pos)
	}
	return fmt.Sprintf("sn %d, pos %d", c.Sn, c.Pos)
}

// wrongCause reports a rollback whose cause, if it names one, is not
// want, the cause the protocol's rule gives it.
func (f *specFrame) wrongCause(seq int32, e *trace.RunEvent, want trace.Cause, rule string) {
	if e.Cause != trace.CauseNone && e.Cause != want {
		f.divergef([]int32{seq}, "%s's rollback at seq %d says cause %s, not %s\n%s, and this one answers a %[4]s", f.name(e.P), seq, e.Cause, want, rule)
	}
}

// copyOf returns the index of the copy event e names, or -1.
func (f *specFrame) copyOf(e *trace.RunEvent) int32 { return f.m.Copies.Index(e.Msg, e.Copy) }

// liveCount returns p's live op count now.
func (f *specFrame) liveCount(p int32) int32 { return int32(len(f.b.Live(p))) }

// bodyFits reports whether every number control body b writes is want's.
func bodyFits(b, want *trace.ControlBody) bool {
	fits := func(got, w int32) bool { return got == history.None || got == w }
	return fits(b.Origin, want.Origin) && fits(b.Count, want.Count) && fits(b.R, want.R) && fits(b.Inc, want.Inc) && fits(b.K, want.K)
}

// describeBody renders a control body for because-chains, its numbers
// as the run writes them: {origin P0, count 1, r 2}.
func describeBody(m *history.Model, c *trace.ControlBody) string {
	if c == nil {
		return "no body"
	}
	var parts []string
	if c.Origin != history.None {
		parts = append(parts, "origin "+m.ProcName(c.Origin))
	}
	for i, v := range []int32{c.Count, c.R, c.Inc, c.K} {
		if v != history.None {
			parts = append(parts, fmt.Sprintf("%s %d", [...]string{"count", "r", "inc", "k"}[i], v))
		}
	}
	if l := c.ReceivedList(); c.Receipts != nil || c.Received != nil {
		parts = append(parts, fmt.Sprintf("%d receipts", len(l)))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// carries judges the body of a control message for failure fi against
// what its restart made of it.
func (f *specFrame) carries(seq int32, e *trace.RunEvent, fi int32, want trace.ControlBody) {
	b, fl := f.m.Run.Body(e), &f.m.Failures[fi]
	if b == nil || bodyFits(b, &want) {
		return
	}
	f.divergef([]int32{fl.Seq, fl.Restart, seq}, "%s's %s control message at seq %d carries %s, not %s\na control message for %s carries what its restart at seq %d made of it",
		f.name(e.P), e.Control, seq, describeBody(f.m, b), describeBody(f.m, &want), f.m.FailName(fi), fl.Restart)
}

// duties is what a process owes at once, oldest first: the rest of a
// reaction an event began (MS: a forced checkpoint's delivery, a
// request's application; PK: a token hop, a resume). D is the protocol
// spec's duty, its kinds and texts the spec's own. In a run that claims
// SPEC §3's timing a reaction is instantaneous and uninterrupted, so
// another event first diverges, though the duty may still be done, late;
// in another, events may come between.
type duties[D any] []D

// head returns the duty owed now, or nil, first popping those drop
// (nil: none) says are no longer owed.
func (q *duties[D]) head(drop func(*D) bool) *D {
	for len(*q) > 0 {
		if d := &(*q)[0]; drop == nil || !drop(d) {
			return d
		}
		q.pop()
	}
	return nil
}

// duty is what a protocol spec's duty says of itself: the event that
// began it, whose instant its steps share in a run that claims SPEC §3's
// timing, and why (the protocol's rule).
type duty interface {
	began() (seq int32, why string)
}

// owed returns the duty event e at seq fulfils, or nil: the head, if
// step says e is one of its steps, popped once e is its last. An event
// that is none leaves it unmet (in a timed run); a step at another
// instant than the duty's beginning diverges (issue 28: a rollback or a
// resume moved later than the request or token it answers passed).
func (q *duties[D]) owed(f *specFrame, seq int32, e *trace.RunEvent, drop func(*D) bool, step func(*D) (ok, last bool), unmet func(*D)) *D {
	d := q.head(drop)
	if d == nil || e.Kind == trace.Unhold {
		return nil
	}
	ok, last := step(d)
	if !ok {
		if f.instants {
			unmet(d)
		}
		return nil
	}
	if from, why := any(d).(duty).began(); !f.sameInstant(from, e) {
		f.divergef([]int32{from, seq}, "%s comes at t=%s, not at the instant of %s\n%s", f.ev(seq), e.T, f.ev(from), why)
	}
	out := *d
	if last {
		q.pop()
	}
	return &out
}

// pop removes the head, keeping the queue's array for the next duties
// (a queue is short: a token hop's, the requests a restart owes).
func (q *duties[D]) pop() { *q = append((*q)[:0], (*q)[1:]...) }
