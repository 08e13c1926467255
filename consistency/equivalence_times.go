package consistency

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// replayTimes judges the ops' times of SPEC §3 (readyTimes) in a run
// that records the params it was replayed with (replayTimed); the run
// spec judges the network's and the down times under the same condition.
// A foreign algorithm's run keeps its own network's timing. A run of one
// of ckpt's algorithms claims §3's; without its params the times cannot
// be judged, and SPEC §6 makes the property unknown, never pass
// (docs/checker.md, "Runs without params").
func replayTimes(m *history.Model, r *result) {
	switch {
	case replayTimed(m.Run):
		readyTimes(m, r)
	case m.Run.Options.Timing == trace.TimingRecorded:
		// Judged on its program and on causal order only: the run's
		// form (time order, each receipt after its send, each restart
		// after its fail, ops in program order) is checked above. The
		// note tells the reader so: a pass here claims less.
		if r.Note == "" {
			r.Note = recordedNote
		}
	case m.Alg != history.Foreign:
		r.cannotJudge(noParamsWhy)
	}
}

// recordedNote is the note of a recorded run's equivalence.
const recordedNote = "times recorded (options.timing), so judged on the programs and causal order, not on SPEC §3's replay times"

// noParamsWhy says why equivalence is unknown for a run of one of
// ckpt's algorithms that records no params.
const noParamsWhy = "the run records no params (restart_delay, control_delay, default_delay), so the times SPEC §3 gives its ops, copies, control messages and restarts cannot be judged"

// readyTimes checks that every op executes at its ready time (SPEC §3):
// op k is ready gap_k (its trace time less its predecessor's) after the
// previous op executed, or after the restore, if later; a send or an
// internal op executes when ready, a receive then or later; an op PK
// replays at a restore, at its time. A held process executes nothing:
// after a block the wait already done is kept (exec moves by the block's
// length), after another hold the next op is ready a gap after the
// resume; either way not before the resume (docs/replay.md). A receive
// examines its copies when it is ready and they have arrived
// (examines).
func readyTimes(m *history.Model, r *result) {
	np := len(m.Procs)
	opAt := m.SrcOps()
	st := make([]readyState, np)
	for p := range st {
		st[p].pausedAt = -1
	}
	x, end, at := newExams(m), trace.Time(-1), instant{}
	for i := range m.Run.Events {
		e := &m.Run.Events[i]
		if e.P < 0 || int(e.P) >= np {
			continue
		}
		s := &st[e.P]
		switch e.Kind {
		case trace.Fail:
			if !s.down { // a fail of a process down changes nothing
				x.overdue(int32(i), e, s, opAt[e.P], r)
				s.down = true
			}
		case trace.Restart, trace.Rollback:
			if e.Kind == trace.Rollback {
				x.overdue(int32(i), e, s, opAt[e.P], r)
			}
			// PK holds a restarted process until its token returns,
			// through any rollback meanwhile.
			if s.down = false; e.Kind == trace.Restart {
				s.held = m.Alg == history.PK
			}
			s.exec, s.floor, s.pausedAt = e.T, e.T, -1
			s.op, s.since, s.sinceSeq, s.examined = e.Pos, e.T, int32(i), false
		case trace.Block:
			s.pausedAt = e.T
		case trace.Resume:
			s.held = false
			if s.pausedAt >= 0 {
				s.exec += e.T - s.pausedAt
				s.pausedAt = -1
			} else {
				s.exec = max(s.exec, e.T)
			}
			s.floor, s.since, s.sinceSeq, s.examined = e.T, e.T, int32(i), false
		case trace.Discard, trace.Hold:
			if ready, ok := s.ready(m, opAt[e.P], s.op); ok && !s.examined {
				x.examines(int32(i), e, ready, s, r)
			}
			s.since, s.sinceSeq, s.examined, s.holdFor = e.T, int32(i), e.Kind == trace.Hold, e.Failure
		case trace.Unhold, trace.Checkpoint:
			// A hold ends at its unhold, or at once when the recovery it
			// waits for is applied (MS: a recovery checkpoint naming it).
			if s.examined && (e.Kind == trace.Unhold || e.CkptType == trace.CkptRecovery && e.Failure == s.holdFor) {
				s.since, s.sinceSeq, s.examined = e.T, int32(i), false
			}
		case trace.End, trace.Unconsumed:
			if end < 0 {
				end = x.endTime(int32(i), st, opAt)
			}
			if e.T != end {
				x.endAt(int32(i), e, end, r)
			}
		case trace.Send, trace.Internal, trace.Recv:
			if e.Resend {
				continue
			}
			if ready, ok := s.ready(m, opAt[e.P], e.Op); ok && !at.replayedAtRestore(m, int32(i), e) {
				if e.T < ready || (e.Kind != trace.Recv && e.T != ready) {
					notReady(m, int32(i), e, ready, r)
				} else if e.Kind == trace.Recv && !s.examined {
					x.examines(int32(i), e, ready, s, r)
				}
			}
			s.exec, s.floor, s.since, s.sinceSeq = e.T, e.T, e.T, int32(i)
			s.op, s.examined = e.Op+1, false
		}
	}
}

// readyState is what readyTimes keeps per process: when its last op
// executed (moved by the blocks since), the earliest time its next op
// may run (its last resume or restore), and when its current block
// began (-1: none); the op it is at (None: unknown), when it last
// started waiting there (the op's start, a discard's, a hold's end), and
// whether its receive holds, for the failure holdFor.
type readyState struct {
	exec, floor, pausedAt, since trace.Time
	op, holdFor, sinceSeq        int32 // sinceSeq: the event at since
	examined                     bool
	// down: failed and not restarted; held: a PK restart not resumed.
	down, held bool
}

// ready returns op k's ready time, from its trace gap (ops: the trace
// indexes of the process's ops), or false if the run has no such op.
func (s *readyState) ready(m *history.Model, ops []int32, k int32) (trace.Time, bool) {
	if k < 0 || int(k) >= len(ops) {
		return 0, false
	}
	gap := m.Src.Events[ops[k]].T
	if k > 0 {
		gap -= m.Src.Events[ops[k-1]].T
	}
	return max(s.exec+gap, s.floor), true
}

// exams judges when a receive examines the copies of its message: at
// the first time at which it is ready and one has arrived, in arrival
// order (SPEC §3: a receive examines its message's copies in arrival
// order, the replay log's first, and delivers, discards or holds the
// receive). So the first receipt, discard or hold by which it takes or
// waits on a copy comes at once then, not later: a process does not
// leave an arrived copy in its mailbox while its receive is ready
// (issue 28: a hold deleted, or a discard or receipt moved later,
// passed). Which copy it takes is the run spec's (inOrder). taken is,
// per copy, the seq of the first receive or discard that took it (None:
// none): a copy taken before and put back does not time the receive.
type exams struct {
	m     *history.Model
	taken []int32
	fails [][]int32 // per process, the source trace indexes of its fails
}

func newExams(m *history.Model) exams {
	taken := slices.Repeat([]int32{history.None}, m.Copies.Len())
	for i := range m.Run.Events {
		e := &m.Run.Events[i]
		if (e.Kind == trace.Recv && e.Via != trace.ViaLog || e.Kind == trace.Discard) && !e.Resend {
			if ci := m.Copies.Index(e.Msg, e.Copy); ci >= 0 && taken[ci] == history.None {
				taken[ci] = int32(i)
			}
		}
	}
	_, fails := m.SrcEnv()
	return exams{m: m, taken: taken, fails: fails}
}

// examines judges event e at seq, by which a receive ready at ready
// examines a copy of its message first since it became ready, or since
// it waits again (since: a discard, its hold's end): due
// when the receive is ready and the earliest copy not taken before has
// arrived (first), or at once for the replay log's. A hold before then
// holds nothing yet; a receipt or discard before its own copy arrived is
// the run spec's (envSpec.arrived).
func (x *exams) examines(seq int32, e *trace.RunEvent, ready trace.Time, s *readyState, r *result) {
	m, due, first := x.m, max(ready, s.since), int32(history.None)
	d, ok := m.SrcDelay(e.Msg)
	if !ok {
		return
	}
	at := func(ci int32) trace.Time { return m.Event(m.Copies.Send[ci]).T + d }
	if e.Kind != trace.Recv || e.Via != trace.ViaLog {
		if first = x.firstCopy(seq, e.P, e.Msg, at); first == history.None {
			return
		}
		due = max(due, at(first))
	}
	switch own := m.Copies.Index(e.Msg, e.Copy); {
	case own >= 0 && first != history.None && own != first && x.taken[own] == seq && at(first) <= e.T:
		// The copy that arrived first waits: the run spec's (inOrder).
	case e.T > due || e.Kind == trace.Hold && e.T < due || e.T < ready && (e.Kind != trace.Discard || own < 0 || m.Copies.Send[own] == history.None || e.T >= at(own)):
		x.late(seq, e, ready, due, first, s.sinceSeq, at, r)
	}
}

// late reports a receive's first examination of a copy at another time
// than due (first: the copy it was due for, arriving at at(first); None:
// the replay log's).
func (x *exams) late(seq int32, e *trace.RunEvent, ready, due trace.Time, first, since int32, at func(int32) trace.Time, r *result) {
	m := x.m
	// again: due is when the receive waits again (after the event at
	// since), not when it became ready or its copy arrived.
	again, seqs := due != ready && (first == history.None || due != at(first)), []int32{seq}
	if again {
		seqs = []int32{since, seq}
	}
	r.fail(seqs, func() (string, string) {
		what := "its entry in the replay log is there from the restore"
		if first != history.None {
			snd := m.Copies.Send[first]
			what = fmt.Sprintf("copy %d of %s, sent at seq %d, arrives at t=%s", m.Event(snd).Copy, m.MsgName(e.Msg), snd, at(first))
		}
		if again {
			what += fmt.Sprintf(", and it waits there again from t=%s, %s", due, waitsAgain(m.Event(since), since))
		}
		return fmt.Sprintf("%s's %s of %s at seq %d comes at t=%s, not at t=%s", m.ProcName(e.P), e.Kind, m.MsgName(e.Msg), seq, e.T, due),
			fmt.Sprintf("%s's receive of %s is ready at t=%s and %s: a receive examines its message's copies at the first time it is ready and one has arrived, t=%s, and delivers, discards or holds then (SPEC §3)",
				m.ProcName(e.P), m.MsgName(e.Msg), ready, what, due)
	})
}

// waitsAgain says why a receive waits for a copy again from the event
// at seq: a discard, or its hold's end (its unhold, or the recovery
// checkpoint applying the failure the hold waits for).
func waitsAgain(e *trace.RunEvent, seq int32) string {
	switch e.Kind {
	case trace.Checkpoint:
		return fmt.Sprintf("when its hold ended (the recovery checkpoint at seq %d applies the failure the hold waited for)", seq)
	case trace.Unhold:
		return fmt.Sprintf("when its hold ended (its unhold at seq %d)", seq)
	}
	return fmt.Sprintf("after its %s at seq %d", e.Kind, seq)
}

// instant is the run's events at one instant from some event on, up to
// to, and the restarts and rollbacks among them (readyTimes keeps one,
// moving it forward, so that each event is looked at once: a scan from
// every op to the instant's end took time quadratic in the processes
// acting at one instant, such as a ring of thousands sending at t=0).
type instant struct {
	to       int32
	restores []int32
}

// replayedAtRestore reports whether op event seq is part of PK's instant
// replay: the run writes the ops a restart re-executes from its log
// before the restart, at its time, so a restore of the same process at
// the same instant follows whose pos is beyond the op.
func (g *instant) replayedAtRestore(m *history.Model, seq int32, e *trace.RunEvent) bool {
	if seq >= g.to {
		g.restores = g.restores[:0]
		for g.to = seq + 1; int(g.to) < len(m.Run.Events) && m.Event(g.to).T == e.T; g.to++ {
			if k := m.Event(g.to).Kind; k == trace.Restart || k == trace.Rollback {
				g.restores = append(g.restores, g.to)
			}
		}
	}
	for _, r := range g.restores {
		if n := m.Event(r); r > seq && n.P == e.P {
			return n.Pos > e.Op
		}
	}
	return false
}

// firstCopy returns the copy of message msg to p, sent before seq and
// not taken before it, that arrives first (at: its arrival), or None.
func (x *exams) firstCopy(seq, p, msg int32, at func(int32) trace.Time) int32 {
	m, first := x.m, int32(history.None)
	for k := int32(1); m.Copies.Index(msg, k) >= 0; k++ {
		ci := m.Copies.Index(msg, k)
		if snd := m.Copies.Send[ci]; snd != history.None && snd < seq && m.CopyTo(ci) == p &&
			(x.taken[ci] >= seq || x.taken[ci] == history.None) && (first == history.None || at(ci) < at(first)) {
			first = ci
		}
	}
	return first
}

// overdue reports the next op of a process that was due before the fail
// or rollback at seq (before: at the same instant by SPEC §3's order) and
// had not run, the process being up and neither
// blocked nor held by PK until its token returns: a send or internal op
// when ready; a receive when ready and a copy not taken before has
// arrived, which it examines then and delivers, discards or holds. A
// red team's forgeries passed: an op deleted and the restore's undone
// lowered by one; an MS hold and unhold deleted where the Rollback
// request that ends the hold rolls the process back (the rollback reset
// the receive's state before exams judged it).
func (x *exams) overdue(seq int32, e *trace.RunEvent, s *readyState, ops []int32, r *result) {
	m := x.m
	ready, ok := s.ready(m, ops, s.op)
	if !ok || s.pausedAt >= 0 || s.held || !x.before(ready, e, ops[s.op]) {
		return
	}
	op := m.ProgOp(e.P, s.op)
	what := "a send or internal op executes when it is ready (SPEC §3)"
	switch {
	case op.Kind == trace.Recv && !s.examined:
		// A receive examines the first copy that arrived once it is
		// ready (exams): it delivers, discards or holds then.
		d, ok := m.SrcDelay(op.Msg)
		at := func(ci int32) trace.Time { return m.Event(m.Copies.Send[ci]).T + d }
		first := int32(history.None)
		if ok {
			first = x.firstCopy(seq, e.P, op.Msg, at)
		}
		if first == history.None {
			return
		}
		if ready = max(ready, s.since, at(first)); !x.before(ready, e, ops[s.op]) {
			return
		}
		what = fmt.Sprintf("a receive examines its message's copies when it is ready and one has arrived (SPEC §3), and copy %d of %s arrived at t=%s", m.Event(m.Copies.Send[first]).Copy, m.MsgName(op.Msg), at(first))
	case op.Kind != trace.Send && op.Kind != trace.Internal:
		return
	}
	r.fail([]int32{seq}, func() (string, string) {
		return fmt.Sprintf("%s's op %d (%s) is due at t=%s but has not run by its %s at seq %d, t=%s", m.ProcName(e.P), s.op, op.Kind, ready, e.Kind, seq, e.T),
			fmt.Sprintf("op %d of %s is ready its trace gap after the previous op executed (or after the restore or resume, if later), rebuilt from the run, and %s: before the %s", s.op, m.ProcName(e.P), what, e.Kind)
	})
}

// before reports whether an op at trace index idx, due at t, runs before
// the fail or rollback e of its process: earlier, or at e's instant when
// e is a fail the trace lists after the op, both being trace-indexed
// items there (SPEC §3, order at equal times). A rollback answers a
// control message's arrival, which comes before every trace-indexed item
// of its instant. A red team deleted an op due at its fail's instant and
// listed before it (9 of 186 deletions passed while only earlier times
// counted).
func (x *exams) before(t trace.Time, e *trace.RunEvent, idx int32) bool {
	if t != e.T || e.Kind != trace.Fail {
		return t < e.T
	}
	src, fails := x.m.Src.Events, x.fails[e.P]
	k, found := slices.BinarySearchFunc(fails, e.T, func(i int32, at trace.Time) int { return cmp.Compare(src[i].T, at) })
	return found && idx < fails[k]
}

// endTime returns when a replay writes its end and unconsumed records,
// the first of them at seq: at the time of the last item the engine
// handled (docs/replay.md), the latest of the event before them, the
// source trace's last environment event (an MS flush, or a PK flush
// with nothing to log, writes no event), every copy's arrival (which
// writes none), and the ready time of the receive a process ends
// waiting at (examined without a copy, writing none; no valid run ends
// with a PK restart held, so a held one counts as the engine would
// have run it). A red team moved an end or unconsumed record to another
// time, and the run passed.
func (x *exams) endTime(seq int32, st []readyState, opAt [][]int32) trace.Time {
	m, t := x.m, trace.Time(0)
	if seq > 0 {
		t = m.Event(seq - 1).T
	}
	for i := len(m.Src.Events) - 1; i >= 0; i-- {
		if ev := &m.Src.Events[i]; !ev.Kind.IsOp() {
			t = max(t, ev.T)
			break
		}
	}
	for _, snd := range m.Copies.Send {
		if snd == history.None {
			continue
		}
		if d, ok := m.SrcDelay(m.Event(snd).Msg); ok {
			t = max(t, m.Event(snd).T+d)
		}
	}
	for p := range st {
		s := &st[p]
		if ready, ok := s.ready(m, opAt[p], s.op); ok && !s.down && s.pausedAt < 0 && m.ProgOp(int32(p), s.op).Kind == trace.Recv {
			t = max(t, ready)
		}
	}
	return t
}

// endAt reports the end or unconsumed record e at seq, written at
// another time than the run's end, end.
func (x *exams) endAt(seq int32, e *trace.RunEvent, end trace.Time, r *result) {
	r.fail([]int32{seq}, func() (string, string) {
		return fmt.Sprintf("%s's %s record at seq %d comes at t=%s, not at the run's end, t=%s", x.m.ProcName(e.P), e.Kind, seq, e.T, end),
			"a replay writes its end and unconsumed records when no item is pending, at the time of the last one it handled: the latest of its last event, the source trace's last environment event, every copy's arrival and the ready time of a receive a process ends waiting at (docs/replay.md)"
	})
}

// notReady reports an op that did not execute at its ready time.
func notReady(m *history.Model, seq int32, e *trace.RunEvent, ready trace.Time, r *result) {
	when := "at"
	if e.Kind == trace.Recv {
		when = "at or after"
	}
	r.fail([]int32{seq}, func() (string, string) {
		return fmt.Sprintf("%s's %s (op %d) at seq %d executes at t=%s, not %s its ready time t=%s", m.ProcName(e.P), e.Kind, e.Op, seq, e.T, when, ready),
			fmt.Sprintf("op %d of %s is ready its trace gap after the previous op executed (or after the restore or resume, if later), which rebuilt from the run is t=%s, and a %s executes %s it",
				e.Op, m.ProcName(e.P), ready, e.Kind, when)
	})
}
