package consistency

import (
	"fmt"
	"slices"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// The run spec against the source trace (SPEC §3): timer ticks and fails
// happen at their trace times, one run event each; at one instant a
// process's trace-indexed items keep the trace's order; in a run that
// claims §3's timing (replayTimed) a copy arrives its message's delay
// after its send, a receive takes its message's copies in arrival order,
// and a process restarts its fail's down time after it. And the end
// records (SPEC §3), judged against the rebuilt history.

// envSpec is what the run spec keeps of the source trace. Its lists are
// the model's (history.Model.SrcEnv), only ever resliced, never written.
type envSpec struct {
	// ticks and fails are, per process, the trace indexes of its timer
	// ticks and fails still to come; nil without a comparable source
	// trace.
	ticks, fails [][]int32
	// envIdx is, per process, the trace index of the latest tick or
	// fail the run showed, or None.
	envIdx []int32
}

func newEnvSpec(m *history.Model) envSpec {
	env, np := envSpec{}, len(m.Run.Processes)
	if ticks, fails := m.SrcEnv(); ticks != nil {
		env.envIdx = slices.Repeat([]int32{history.None}, np)
		env.ticks, env.fails = slices.Clone(ticks), slices.Clone(fails)
	}
	return env
}

// environment checks a basic checkpoint, a skipped tick or a fail
// against the source trace: each is the next one of its process there,
// at its time. It returns the trace index it matched, or None.
func (s *runSpec) environment(seq int32, e *trace.RunEvent) int32 {
	env := &s.env
	if env.ticks == nil {
		return history.None
	}
	q, what := &env.ticks[e.P], "timer tick"
	if e.Kind == trace.Fail {
		q, what = &env.fails[e.P], "fail"
	}
	if idx := *q; len(idx) > 0 && s.m.Src.Events[idx[0]].T == e.T {
		s.afterOpsBefore(seq, e, idx[0])
		env.envIdx[e.P], *q = idx[0], idx[1:]
		return idx[0]
	}
	next, nor := "none is left", ""
	if len(*q) > 0 {
		next = fmt.Sprintf("the next is at t=%s", s.m.Src.Events[(*q)[0]].T)
	}
	if s.m.Alg == history.Coordinated && e.Kind == trace.Checkpoint {
		nor = " and answers no round request at its instant"
	}
	s.badf(equivalenceAt, []int32{seq}, "%s's %s at seq %d (t=%s) is no %s of the trace%s\nenvironment events happen at their trace time, one run event for each, but of %[1]s's %[5]ss in the trace %[7]s",
		s.name(e.P), e.Kind, seq, e.T, what, nor, next)
	return history.None
}

// missing reports the trace's environment events the run does not show.
func (env *envSpec) missing(s *runSpec) {
	for p := range env.ticks {
		for k, left := range [][]int32{env.ticks[p], env.fails[p]} {
			for _, i := range left {
				t := s.m.Src.Events[i].T
				s.badf(equivalenceAt, nil, "the trace's %s of %s at t=%s is missing from the run\nenvironment events happen at their trace time, one run event for each, and a run ends only when none is pending",
					[]string{"timer tick", "fail"}[k], s.name(int32(p)), t)
			}
		}
	}
}

// opAfterEnv checks op e against the tick or fail of its process the run
// showed before it at the same instant: the trace must list that one
// first too.
func (env *envSpec) opAfterEnv(s *runSpec, seq int32, e *trace.RunEvent) {
	if env.envIdx == nil || env.envIdx[e.P] == history.None || s.m.Src.Events[env.envIdx[e.P]].T != e.T {
		return
	}
	if idx, oi := env.envIdx[e.P], s.m.SrcIndex(e); oi != history.None && oi < idx {
		s.badf(equivalenceAt, []int32{seq}, "%s's %s (op %d) at seq %d comes after a tick or fail of its instant t=%s that the trace lists after it\nat equal times the trace-indexed items happen in trace order (SPEC §3): the trace lists the %[2]s (event %[6]d) before the tick or fail (event %[7]d), so the %[2]s comes first",
			s.name(e.P), e.Kind, e.Op, seq, e.T, oi, idx)
	}
}

// afterOpsBefore checks the tick or fail at seq, trace index idx,
// against the op its process ran last at the same instant: it must come
// before it in the trace too. (Ops a restore of this instant re-executed
// are the restore's, which comes first.)
func (s *runSpec) afterOpsBefore(seq int32, e *trace.RunEvent, idx int32) {
	live := s.b.Live(e.P)
	if r := s.b.LastRestore(e.P); len(live) == 0 || r != history.None && s.m.Event(r).T == e.T || live[len(live)-1] == history.None {
		return
	}
	x := live[len(live)-1]
	if r, ri := s.m.Event(x), s.m.SrcIndex(s.m.Event(x)); r.T == e.T && ri != history.None && ri > idx {
		s.badf(equivalenceAt, []int32{seq}, "%s's %s at seq %d comes after its %s of %s at seq %d, at the same instant t=%s, which the trace lists after it\nat equal times the trace-indexed items happen in trace order (SPEC §3): the trace lists the %[2]s (event %[8]d) before the %[4]s (event %[9]d), so the %[2]s comes first",
			s.name(e.P), e.Kind, seq, r.Kind, s.m.MsgName(r.Msg), x, e.T, idx, ri)
	}
}

// arrived checks, in a replay, the receipt or discard e of copy ci from
// the network: no earlier than the copy's arrival (its message's delay
// after its send), and no copy of its message that arrived before it
// waits in the mailbox (inOrder). When a receive takes a copy is exams'
// (equivalence_times.go).
func (env *envSpec) arrived(s *runSpec, seq int32, e *trace.RunEvent, ci int32) {
	m := s.m
	d, ok := m.SrcDelay(e.Msg)
	if !s.instants || !ok {
		return
	}
	if snd := m.Copies.Send[ci]; snd != history.None && e.T < m.Event(snd).T+d {
		verb := map[bool]string{true: "receives", false: "discards"}[e.Kind == trace.Recv]
		s.badf(equivalenceAt, []int32{seq}, "%s %s %s at seq %d, t=%s, before it arrives at t=%s\ncopy %[7]d of %[3]s was sent at seq %[8]d, t=%[9]s, and a copy arrives its message's delay %[10]s later (the source trace's), so no receive takes it, to deliver or discard it, before t=%[6]s",
			s.name(e.P), verb, m.MsgName(e.Msg), seq, e.T, m.Event(snd).T+d, e.Copy, snd, m.Event(snd).T, d)
		return
	}
	s.inOrder(seq, e, ci, d)
}

// inOrder checks that the receipt or discard e at seq takes copy ci
// while no copy of its message that arrived before it (each arrives
// delay after its send; at one instant in the order they were sent)
// waits in its process's mailbox: a receive examines its message's
// copies in arrival order (SPEC §3), and a copy a rollback put back
// keeps its place (docs/replay.md). A red team's forged run whose PK
// receive, re-executed after a rollback, took a later copy than the one
// put back passed, when only copies no receive had taken were judged.
// A copy is in the mailbox after a rollback only by PK's rule, which
// log-replay-rules judges: one the run never shows again was not put
// back (a copy left unlisted there), so a copy put back and skipped is
// judged at the end, once the run has shown it again (skippedShown).
func (s *runSpec) inOrder(seq int32, e *trace.RunEvent, ci int32, delay trace.Time) {
	m := s.m
	at := func(cj int32) trace.Time { return m.Event(m.Copies.Send[cj]).T + delay }
	for k := int32(1); k <= s.b.CopyCount(e.Msg); k++ {
		cj := m.Copies.Index(e.Msg, k)
		if cj == ci || cj < 0 || !s.b.InMailbox(cj) || m.CopyTo(cj) != e.P || at(cj) > e.T || at(cj) > at(ci) || at(cj) == at(ci) && k > e.Copy {
			continue
		}
		if s.b.WasPutBack(cj) {
			s.skipped = append(s.skipped, [2]int32{seq, cj})
		} else {
			s.outOfOrder(seq, cj)
		}
		return
	}
}

// outOfOrder reports the receipt or discard at seq, which took its copy
// while copy cj, arrived before it, waited in its mailbox.
func (s *runSpec) outOfOrder(seq, cj int32) {
	m, e, snd := s.m, s.m.Event(seq), s.m.Copies.Send[cj]
	d, _ := m.SrcDelay(e.Msg)
	s.badf(equivalenceAt, []int32{seq}, "%s's %s at seq %d takes copy %d of %s while copy %d waits in its mailbox\na receive examines its message's copies in arrival order (SPEC §3), and copy %[6]d, sent at seq %d, arrived at t=%s, before the %s at t=%s; it was neither delivered nor discarded first",
		s.name(e.P), map[bool]string{true: "receive", false: "discard"}[e.Kind == trace.Recv], seq, e.Copy, m.MsgName(e.Msg), m.Event(snd).Copy, snd, m.Event(snd).T+d, e.Kind, e.T)
}

// skippedShown reports, at the end, the takes that skipped a copy put
// back which the run took or listed later (inOrder).
func (s *runSpec) skippedShown() {
	for _, x := range s.skipped {
		if s.b.TakenBy(x[1]) != history.None {
			s.outOfOrder(x[0], x[1])
		}
	}
}

// failedUntil records, in a replay, when the process fail e made down
// restarts: its fail's down time after it (the own of the trace fail at
// index at, else restart_delay).
func (s *runSpec) failedUntil(e *trace.RunEvent, at int32) {
	ps := &s.procs[e.P]
	ps.restartAt = 0
	if at == history.None || !s.instants {
		return
	}
	down := s.m.Src.Events[at].Down
	if down == 0 {
		down = s.m.Run.Options.Params.RestartDelay
	}
	ps.restartAt = e.T + down
}

// restartedAt checks the restart e against the time its fail set.
func (env *envSpec) restartedAt(s *runSpec, seq int32, e *trace.RunEvent) {
	ps := &s.procs[e.P]
	at := ps.restartAt
	if ps.restartAt = 0; at == 0 || !s.b.Down(e.P) || e.T == at {
		return
	}
	f := s.b.LastFail(e.P)
	s.badf(equivalenceAt, []int32{seq}, "%s restarts at seq %d, t=%s, not at t=%s\n%[1]s failed at seq %[5]d, t=%[6]s, and a process is down for its fail's down time (its own, else restart_delay), %[7]s, so it restarts at t=%[4]s",
		s.name(e.P), seq, e.T, at, f, s.m.Event(f).T, at-s.m.Event(f).T)
}

// endRecords judges every process's end record once the run is over: a
// process ends `down` iff it failed and never restarted; one not done is
// stuck at its live count (`op`), at the op its program has there (a
// receive of `msg`, for a blocked one), and (MS, PK, the placement
// protocols) `held` iff a hold, a block or a PK restart whose token has
// not returned holds it. A `done` short of its program is programAt's
// (and, without the source trace, no-lost-messages') to report.
func (s *runSpec) endRecords() {
	for p := range s.procs {
		if end := s.b.Ended(int32(p)); end != history.None {
			if why := s.endWhy(int32(p), s.m.Event(end)); why != "" {
				e := s.m.Event(end)
				s.badf(equivalenceAt, []int32{end}, "%s's end at seq %d says %s\nthe run is not well formed: %s", s.name(int32(p)), end, endSays(s.m, e), why)
			}
		}
	}
}

// endWhy says what is wrong with process p's end record e, or "".
func (s *runSpec) endWhy(p int32, e *trace.RunEvent) string {
	m, ps, live := s.m, &s.procs[p], s.liveCount(p)
	down := s.b.Down(p)
	switch {
	case down && e.State != trace.StateDown:
		return fmt.Sprintf("%s failed at seq %d and never restarted, so it ended down", s.name(p), s.b.LastFail(p))
	case !down && e.State == trace.StateDown && s.b.LastFail(p) == history.None:
		return fmt.Sprintf("%s is up at the end: it never failed", s.name(p))
	case !down && e.State == trace.StateDown:
		return fmt.Sprintf("%s is up at the end: its failure at seq %d ended with its restart at seq %d", s.name(p), s.b.LastFail(p), ps.restart)
	case m.Missing.Ops || e.State == trace.StateDone:
		return ""
	case e.Op != history.None && e.Op != live:
		return fmt.Sprintf("its final live history has %d ops, so it is stuck at op %[1]d, not op %d", live, e.Op)
	case int(live) >= s.m.ProgLen(p) && s.env.ticks != nil && e.State != trace.StateDown:
		return fmt.Sprintf("%s has run its whole program (%d ops), so it is done, not %s", s.name(p), s.m.ProgLen(p), e.State)
	}
	op, ok := s.b.ProgOp(p, live)
	want := op.Msg
	if op.Kind != trace.Recv {
		want = history.None
	}
	switch {
	case !ok:
	case e.Msg != history.None && e.Msg != want:
		return fmt.Sprintf("op %d of %s's program, where it is stuck, is %s%s, not a receive of %s", live, s.name(p), op.Kind, m.MsgOpt(op.Msg), m.MsgName(e.Msg))
	case e.State == trace.StateBlocked && op.Kind != trace.Recv:
		return fmt.Sprintf("op %d of %s's program, where it is stuck, is %s%s, which waits for no message", live, s.name(p), op.Kind, m.MsgOpt(op.Msg))
	}
	if !m.Alg.Recovers() && !m.Alg.Places() {
		return ""
	}
	by := ps.recvHold
	if by == history.None {
		by = ps.procHold
	}
	switch {
	case e.State == trace.StateHeld && by == history.None:
		back := "no restart waits for its token"
		if m.Alg == history.PK && ps.restart != history.None {
			back = fmt.Sprintf("its restart at seq %d was followed by its resume", ps.restart)
		}
		return fmt.Sprintf("nothing holds %s at the end: every hold has its unhold, every block its resume, and %s", s.name(p), back)
	case e.State == trace.StateBlocked && by != history.None:
		release := map[trace.Kind]string{trace.Hold: "unhold, restore or failure", trace.Restart: "resume (its token did not return)", trace.Block: "resume"}[m.Event(by).Kind]
		return fmt.Sprintf("the %s at seq %d still holds %s at the end (no %s after it), so it ended held", m.Event(by).Kind, by, s.name(p), release)
	}
	return ""
}

// endSays renders what an end record claims: "blocked at op 1 on m4".
func endSays(m *history.Model, e *trace.RunEvent) string {
	out := e.State.String()
	if e.Op != history.None {
		out += fmt.Sprintf(" at op %d", e.Op)
	}
	if e.Msg != history.None {
		out += " on " + m.MsgName(e.Msg)
	}
	return out
}
