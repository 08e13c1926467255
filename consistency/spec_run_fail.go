package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// The run spec's checkpoints, failures and restores: a restart ends a
// failure of its process, a rollback or recovery checkpoint answers a
// failure that has restarted, a down process executes nothing and skips
// its ticks, a restore keeps at least its checkpoint's ops.

// checkpoint checks a checkpoint's pos and id.
func (s *runSpec) checkpoint(seq int32, e *trace.RunEvent) {
	live := s.liveCount(e.P)
	switch {
	case e.Pos == history.None:
	case e.Pos < 0:
		s.malformed(seq, func() string { return fmt.Sprintf("event %d: negative pos %d", seq, e.Pos) })
	case e.Pos != live:
		s.posCheck(seq, func() (string, string) {
			return fmt.Sprintf("checkpoint at seq %d has pos %d", seq, e.Pos),
				fmt.Sprintf("%s had %d live ops when it took checkpoint %d at seq %d, but the checkpoint says pos %d",
					s.name(e.P), live, e.Ckpt, seq, e.Pos)
		})
	}
	if e.CkptType == trace.CkptInitial || e.Ckpt == history.None {
		return
	}
	if old, ok := s.b.CkptByID(e.P, e.Ckpt); ok {
		s.fail(equivalenceAt, []int32{seq}, func() (string, string) {
			was := fmt.Sprintf("the checkpoint at seq %d has already", old.Seq)
			if old.Seq == history.None {
				was = "is the initial checkpoint's"
			}
			return fmt.Sprintf("%s reuses checkpoint id %d at seq %d", s.name(e.P), e.Ckpt, seq),
				fmt.Sprintf("checkpoint ids are unique per process (0 is the initial checkpoint), but %s's checkpoint at seq %d has id %d, which %s",
					s.name(e.P), seq, e.Ckpt, was)
		})
	}
	if e.CkptType == trace.CkptRecovery && e.Failure != history.None {
		s.attributed(seq, e)
	}
}

// attributed checks the failure a rollback or recovery checkpoint names:
// an effective fail event whose process has restarted (its recovery is
// known only then).
func (s *runSpec) attributed(seq int32, e *trace.RunEvent) {
	m := s.m
	fi, ok := m.FailureAt(e.Failure)
	switch {
	case !ok && e.Failure != history.None:
		s.fail(equivalenceAt, []int32{seq}, func() (string, string) {
			return fmt.Sprintf("%s at seq %d answers failure seq %d, which is no fail event", e.Kind, seq, e.Failure),
				fmt.Sprintf("the %s of %s at seq %d names failure seq %d, but the run has no effective fail event there", e.Kind, s.name(e.P), seq, e.Failure)
		})
	case ok && m.Failures[fi].Restart == history.None:
		s.fail(equivalenceAt, []int32{seq}, func() (string, string) {
			return fmt.Sprintf("%s at seq %d answers %s before its restart", e.Kind, seq, m.FailName(fi)),
				fmt.Sprintf("a failure is announced at its process's restart, but the %s of %s at seq %d answers %s, whose process has not restarted yet",
					e.Kind, s.name(e.P), seq, m.FailName(fi))
		})
	}
}

// failure notes an effective fail: what processes heard of its seq before
// (a broken run's) stays heard.
func (s *runSpec) failure(seq int32, e *trace.RunEvent) {
	if s.b.Down(e.P) {
		return // a fail of a down process is ignored
	}
	s.env.failedUntil(s, e)
	s.heard = append(s.heard, make([]uint32, len(s.procs))...)
	if len(s.heardOther) > 0 {
		base := len(s.heard) - len(s.procs)
		for p := range s.procs {
			k := [2]int32{int32(p), seq}
			if h, ok := s.heardOther[k]; ok {
				s.heard[base+p] |= h
				delete(s.heardOther, k)
			}
		}
	}
}

// restart checks that a restart ends its process's pending failure (the
// one its failure field, if any, names), at the time it ends.
func (s *runSpec) restart(seq int32, e *trace.RunEvent) {
	last := s.b.LastFail(e.P)
	switch {
	case !s.b.Down(e.P):
		s.fail(equivalenceAt, []int32{seq}, func() (string, string) {
			return fmt.Sprintf("%s restarts at seq %d but is not down", s.name(e.P), seq),
				fmt.Sprintf("a restart ends a failure, but %s has no fail event since its last restart before seq %d", s.name(e.P), seq)
		})
	case e.Failure != history.None && e.Failure != last:
		s.fail(equivalenceAt, []int32{seq}, func() (string, string) {
			return fmt.Sprintf("%s's restart at seq %d answers failure seq %d, not its own pending failure seq %d", s.name(e.P), seq, e.Failure, last),
				fmt.Sprintf("%s failed at seq %d and restarts at seq %d, so the restart answers that failure, but it names failure seq %d",
					s.name(e.P), last, seq, e.Failure)
		})
	}
	s.opsWhileDown(e.P, seq)
	s.env.restartedAt(s, seq, e)
}

// restarted checks a restart's inc — the new incarnation (PK) or failure
// count (MS): its process's number of restarts — and notes that the
// process heard of its own failure.
func (s *runSpec) restarted(seq int32, e *trace.RunEvent) {
	if n := s.b.Restarts(e.P); e.Inc != history.None && (s.m.Alg == history.MS || s.m.Alg == history.PK) && e.Inc != n {
		s.fail(equivalenceAt, []int32{seq}, func() (string, string) {
			return fmt.Sprintf("%s's restart at seq %d says inc %d, but it is restart number %d", s.name(e.P), seq, e.Inc, n),
				fmt.Sprintf("a restart's inc is the process's new incarnation (PK) or failure count (MS), which is its number of restarts; %s restarts for the %s time at seq %d, but the run says inc %d",
					s.name(e.P), ordinal(n), seq, e.Inc)
		})
	}
	if fi := s.m.FailOf(seq); fi != history.None {
		s.hear(e.P, s.m.Failures[fi].Seq, heardRestart)
	}
}

// rollback checks that a rollback comes from an up process and names a
// failure that has restarted.
func (s *runSpec) rollback(seq int32, e *trace.RunEvent) {
	if s.b.Down(e.P) {
		s.fail(equivalenceAt, []int32{seq}, func() (string, string) {
			return fmt.Sprintf("%s rolls back at seq %d while it is down", s.name(e.P), seq),
				fmt.Sprintf("%s failed at seq %d and has not restarted, so it executes nothing, but the run shows it rolling back at seq %d",
					s.name(e.P), s.b.LastFail(e.P), seq)
		})
	}
	s.attributed(seq, e)
}

// restore checks a restart's or rollback's checkpoint and pos: a held
// checkpoint (domino-free), and at least its ops kept, at most the live
// ones.
func (s *runSpec) restore(seq int32, e *trace.RunEvent) {
	if e.Restore != history.None && !s.b.Holds(e.P, e.Restore) && !s.m.Missing.CkptID {
		s.fail(dominoFreeAt, []int32{seq}, func() (string, string) {
			return fmt.Sprintf("%s restores checkpoint %d it does not hold", s.name(e.P), e.Restore),
				fmt.Sprintf("at seq %d %s restores checkpoint %d, but no checkpoint with that id is among the checkpoints it holds (it took it never, or a rollback discarded it)",
					seq, s.name(e.P), e.Restore)
		})
	}
	pos, live := e.Pos, s.liveCount(e.P)
	switch {
	case pos == history.None:
		return
	case pos < 0:
		s.malformed(seq, func() string { return fmt.Sprintf("event %d: negative pos %d", seq, pos) })
		return
	case pos > live:
		s.posCheck(seq, func() (string, string) {
			return fmt.Sprintf("%s at seq %d keeps %d ops but has only %d", e.Kind, seq, pos, live),
				fmt.Sprintf("%s had %d live ops at seq %d, so a %s cannot keep the first %d", s.name(e.P), live, seq, e.Kind, pos)
		})
	}
	if ck, ok := s.b.CkptByID(e.P, e.Restore); ok && e.Restore != history.None && pos < ck.Pos {
		s.fail(equivalenceAt, []int32{seq}, func() (string, string) {
			msg := fmt.Sprintf("%s's %s at seq %d restores checkpoint %d, taken at pos %d, but says pos %d", s.name(e.P), e.Kind, seq, e.Restore, ck.Pos, pos)
			return msg, notWellFormed(msg + ": a restored checkpoint holds the state after its pos ops, and replay only moves forward from it")
		})
	}
}

// undoneCount checks a restore's undone against the ops it undid.
func (s *runSpec) undoneCount(seq int32, e *trace.RunEvent) {
	if e.Pos < 0 || e.Undone == history.None {
		return
	}
	if n := s.m.RestoreOf(seq).Undone; e.Undone != n {
		kept := min(e.Pos, s.liveCount(e.P))
		s.posCheck(seq, func() (string, string) {
			return fmt.Sprintf("%s at seq %d claims %d ops undone, the checker counts %d", e.Kind, seq, e.Undone, n),
				fmt.Sprintf("%s had %d live ops before seq %d and kept %d, so %d were undone", s.name(e.P), kept+n, seq, kept, n)
		})
	}
}

// opsWhileDown reports the app ops p executed while down, other than the
// ones a PK restart at seq restart re-executes at its own time.
func (s *runSpec) opsWhileDown(p, restart int32) {
	m := s.m
	ps := &s.procs[p]
	if !m.Alg.Recovers() {
		ps.downOps = ps.downOps[:0]
		return
	}
	for _, x := range ps.downOps {
		if restart != history.None && m.Alg == history.PK && m.Event(x).T == m.Event(restart).T {
			continue
		}
		last := s.b.LastFail(p)
		s.posCheck(x, func() (string, string) {
			e := m.Event(x)
			return fmt.Sprintf("%s executes op %d at seq %d while it is down", s.name(e.P), e.Op, x),
				fmt.Sprintf("%s failed at seq %d and executes nothing until it restarts (a PK restart re-executes ops at its own time), but %s comes before that",
					s.name(e.P), last, m.Describe(x))
		})
	}
	ps.downOps = ps.downOps[:0]
}

// downTick checks a timer tick against the process being up or down: a
// down process takes no checkpoint and records the tick as skipped with
// reason "down"; an up one never does (SPEC §3).
func (s *runSpec) downTick(seq int32, e *trace.RunEvent) {
	isDown := s.b.Down(e.P)
	down := e.Kind == trace.CheckpointSkipped && e.Reason == trace.ReasonDown
	if e.Kind == trace.Checkpoint && e.CkptType == trace.CkptInitial || down == isDown {
		return
	}
	if e.Kind == trace.CheckpointSkipped && !down && !isDown {
		return
	}
	state := map[bool]string{true: "down", false: "up"}[isDown]
	s.fail(equivalenceAt, []int32{seq}, func() (string, string) {
		return fmt.Sprintf("%s's %s at seq %d does not fit it being %s", s.name(e.P), e.Kind, seq, state),
			fmt.Sprintf("a tick of a down process takes no checkpoint and is recorded as skipped with reason down, and only then; %s is %s at seq %d", s.name(e.P), state, seq)
	})
}

// prompted checks that a rollback answering a request or token, a
// control message or a resend comes after its process heard of the
// failure it answers: a failure's control messages start at its
// process's restart and travel from there (SPEC §4.2, §5).
func (s *runSpec) prompted(seq int32, e *trace.RunEvent) {
	if e.Failure == history.None || s.heardOf(e.P, e.Failure) != 0 {
		return
	}
	if e.Kind == trace.Rollback && e.Cause != trace.CauseRequest && e.Cause != trace.CauseToken {
		return // a rollback for a message from a later recovery (MS)
	}
	s.fail(equivalenceAt, []int32{seq}, func() (string, string) {
		return fmt.Sprintf("%s's %s at seq %d answers failure seq %d, of which it has not heard", s.name(e.P), e.Kind, seq, e.Failure),
			fmt.Sprintf("a failure's control messages start at its process's restart and reach the others as control_recv events; %s has no restart or control_recv for failure seq %d before its %s at seq %d",
				s.name(e.P), e.Failure, e.Kind, seq)
	})
}

// hear records that process p learnt of the failure at seq fail by what.
func (s *runSpec) hear(p, fail int32, what uint32) {
	if fi, ok := s.m.FailureAt(fail); ok {
		s.heard[int(fi)*len(s.procs)+int(p)] |= what
		return
	}
	k := [2]int32{p, fail}
	if s.heardOther == nil {
		s.heardOther = map[[2]int32]uint32{}
	}
	s.heardOther[k] |= what
}

// heardOf says what process p heard of the failure at seq fail.
func (s *runSpec) heardOf(p, fail int32) uint32 {
	if fi, ok := s.m.FailureAt(fail); ok {
		return s.heard[int(fi)*len(s.procs)+int(p)]
	}
	return s.heardOther[[2]int32{p, fail}]
}

func ordinal(n int32) string {
	switch {
	case n%100 >= 11 && n%100 <= 13:
		return fmt.Sprintf("%dth", n)
	case n%10 == 1:
		return fmt.Sprintf("%dst", n)
	case n%10 == 2:
		return fmt.Sprintf("%dnd", n)
	case n%10 == 3:
		return fmt.Sprintf("%drd", n)
	}
	return fmt.Sprintf("%dth", n)
}
