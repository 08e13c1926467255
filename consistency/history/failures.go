package history

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/rline"
	"github.com/ckpt-dev/ckpt/trace"
)

// fail records an effective fail event; a fail of a process that is
// already down is ignored (SPEC §3).
func (b *Builder) fail(seq int32, e *trace.RunEvent, ps *procBuild) {
	if ps.down {
		return
	}
	m := b.m
	ps.down = true
	ps.lastFail = seq
	b.failedUntil(e, ps, b.wf.lastEnv)
	f := Failure{Seq: seq, P: e.P, Restart: None, Count: None, R: None}
	b.snapshot(&f)
	m.Failures = append(m.Failures, f)
	m.failSeqs = append(m.failSeqs, seq)
	b.perFail = append(b.perFail, make([]failProc, len(b.procs))...)
	// What a broken run said processes heard of this seq before it failed
	// (heardOther) stays heard, as it did when heard was one map by seq.
	if len(b.heardOther) > 0 {
		for p := range b.procs {
			k := [2]int32{int32(p), seq}
			if h, ok := b.heardOther[k]; ok {
				b.failProcOf(int32(len(m.Failures)-1), int32(p)).heard |= h
				delete(b.heardOther, k)
			}
		}
	}
}

// restart applies a restart: it answers the process's pending failure,
// restores a checkpoint, and handles the control messages that arrived
// while the process was down.
func (b *Builder) restart(seq int32, e *trace.RunEvent, ps *procBuild) {
	m := b.m
	fi := b.restartOf(seq, e, ps)
	if fi == None {
		m.Missing.Failure = true
	}
	b.opsWhileDown(ps, seq)
	b.restartedAt(seq, e, ps)
	ps.down = false
	restored := b.restore(seq, e, ps, !m.Alg.Recovers())
	inc := int32(len(ps.restarts)) // the incarnation that ended
	ps.restarts = append(ps.restarts, seq)
	if n := inc + 1; e.Inc != None && (m.Alg == MS || m.Alg == PK) && e.Inc != n {
		b.anomaly(RestartInc, seq, func() (string, string) {
			return fmt.Sprintf("%s's restart at seq %d says inc %d, but it is restart number %d", m.ProcName(e.P), seq, e.Inc, n),
				fmt.Sprintf("a restart's inc is the process's new incarnation (PK) or failure count (MS), which is its number of restarts; %s restarts for the %s time at seq %d, but the run says inc %d",
					m.ProcName(e.P), ordinal(n), seq, e.Inc)
		})
	}
	var ann *Announcement
	if m.Alg == PK && e.Pos >= 0 {
		ann = &Announcement{Origin: e.P, Inc: inc, K: e.Pos}
	}
	if fi != None {
		b.hear(e.P, m.Failures[fi].Seq, heardRestart)
		f := &m.Failures[fi]
		f.Restart, f.Ann = seq, ann
		if restored != None {
			ps.attributed++
			f.Count, f.R = ps.attributed, ps.taken[restored].Sn
		}
		b.handle(fi, e.P, seq, ps)
	}
	for _, fj := range b.downPending[e.P] {
		b.candidate(Handling{F: fj, P: e.P, Seq: seq, Top: Top(ps.live)})
	}
	delete(b.downPending, e.P)
}

// restartOf returns the failure a restart answers: the process's
// pending one (which the restart's failure field, if any, must name),
// or None — with an anomaly when the process is not down or the field
// names another event.
func (b *Builder) restartOf(seq int32, e *trace.RunEvent, ps *procBuild) int32 {
	m := b.m
	if !ps.down {
		b.anomaly(RestartNotDown, seq, func() (string, string) {
			return fmt.Sprintf("%s restarts at seq %d but is not down", m.ProcName(e.P), seq),
				fmt.Sprintf("a restart ends a failure, but %s has no fail event since its last restart before seq %d", m.ProcName(e.P), seq)
		})
		return None
	}
	if e.Failure != None && e.Failure != ps.lastFail {
		b.anomaly(FailureNotFail, seq, func() (string, string) {
			return fmt.Sprintf("%s's restart at seq %d answers failure seq %d, not its own pending failure seq %d", m.ProcName(e.P), seq, e.Failure, ps.lastFail),
				fmt.Sprintf("%s failed at seq %d and restarts at seq %d, so the restart answers that failure, but it names failure seq %d",
					m.ProcName(e.P), ps.lastFail, seq, e.Failure)
		})
		return None
	}
	fi, ok := m.FailureAt(ps.lastFail)
	if !ok || m.Failures[fi].Restart != None {
		return None
	}
	return fi
}

// controlRecv handles the arrival of a control message: a handling point
// of its failure for a process that does nothing else about it (or, for
// a process that is down, its restart).
func (b *Builder) controlRecv(seq int32, e *trace.RunEvent, ps *procBuild) {
	m := b.m
	b.hear(e.P, e.Failure, 1<<e.Control)
	fi, ok := m.FailureAt(e.Failure)
	if !ok {
		if e.Failure != None {
			b.anomaly(FailureNotFail, seq, func() (string, string) {
				return fmt.Sprintf("control message received at seq %d answers failure seq %d, which is no fail event", seq, e.Failure),
					fmt.Sprintf("the control_recv of %s at seq %d names failure seq %d, but the run has no effective fail event there", m.ProcName(e.P), seq, e.Failure)
			})
		}
		return
	}
	if ps.down {
		put(&b.downPending, e.P, append(b.downPending[e.P], fi))
		return
	}
	b.candidate(Handling{F: fi, P: e.P, Seq: seq, Top: Top(ps.live)})
}

// candidate records a control-message handling point, the first one per
// (process, failure).
func (b *Builder) candidate(h Handling) {
	if fp := b.failProcOf(h.F, h.P); !fp.cand {
		fp.cand = true
		b.candidates = append(b.candidates, h)
	}
}

// snapshotBudget bounds the live receipts copied for max-line snapshots,
// counted as the live ops of every process at each fail instant, so runs
// with very many failures stay linear; beyond it max lines are left out.
const snapshotBudget = 2_000_000

// snapshot records the whole system's state at a fail instant for the
// maximum consistent recovery line: live counts, the head of each
// process's chain of held checkpoints (the chain itself never changes,
// so the head is the whole table) and the messages received in the live
// histories.
func (b *Builder) snapshot(f *Failure) {
	m := b.m
	np := len(b.procs)
	s := &f.Snap
	s.LiveAt = make([]int32, np)
	total := 0
	for q := range b.procs {
		s.LiveAt[q] = int32(len(b.procs[q].live))
		total += len(b.procs[q].live)
	}
	if b.snapshotUsed+total > snapshotBudget {
		return
	}
	b.snapshotUsed += total
	s.heads = make([]int32, np)
	s.recvs = make([]rline.Msg, 0, total/2+1)
	for q := range b.procs {
		ps := &b.procs[q]
		s.heads[q] = ps.held[len(ps.held)-1]
		for _, r := range ps.live {
			if r == None || m.Run.Events[r].Kind != trace.Recv {
				continue
			}
			snd := m.SendOf[r]
			if snd == None || m.UndoneBy[snd] != None {
				continue
			}
			se := &m.Run.Events[snd]
			s.recvs = append(s.recvs, rline.Msg{From: se.P, SendOp: se.Op, To: int32(q), RecvOp: m.Run.Events[r].Op})
		}
	}
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

// prompted checks that a rollback answering a request or token, a
// control message or a resend comes after its process heard of the
// failure it answers: a failure's control messages start at its
// process's restart and travel from there (SPEC §4.2, §5).
func (b *Builder) prompted(seq int32, e *trace.RunEvent, ps *procBuild) {
	if e.Failure == None || b.heardOf(e.P, e.Failure) != 0 {
		return
	}
	if e.Kind == trace.Rollback && e.Cause != trace.CauseRequest && e.Cause != trace.CauseToken {
		return // a rollback for a message from a later recovery (MS)
	}
	m := b.m
	b.anomaly(Unprompted, seq, func() (string, string) {
		return fmt.Sprintf("%s's %s at seq %d answers failure seq %d, of which it has not heard", m.ProcName(e.P), e.Kind, seq, e.Failure),
			fmt.Sprintf("a failure's control messages start at its process's restart and reach the others as control_recv events; %s has no restart or control_recv for failure seq %d before its %s at seq %d",
				m.ProcName(e.P), e.Failure, e.Kind, seq)
	})
}

// heardRestart marks in heard a process's restart from its own failure.
const heardRestart = 1 << 31

// hear records that process p learnt of failure fail by what.
func (b *Builder) hear(p, fail int32, what uint32) {
	if fi, ok := b.m.FailureAt(fail); ok {
		b.failProcOf(fi, p).heard |= what
		return
	}
	k := [2]int32{p, fail}
	put(&b.heardOther, k, b.heardOther[k]|what)
}

// heardOf says what process p heard of the failure at seq fail (hear).
func (b *Builder) heardOf(p, fail int32) uint32 {
	if fi, ok := b.m.FailureAt(fail); ok {
		return b.failProcOf(fi, p).heard
	}
	return b.heardOther[[2]int32{p, fail}]
}

// downTick checks a timer tick against the process being up or down: a
// down process takes no checkpoint and records the tick as skipped with
// reason "down"; an up one never does (SPEC §3).
func (b *Builder) downTick(seq int32, e *trace.RunEvent, ps *procBuild) {
	down := e.Kind == trace.CheckpointSkipped && e.Reason == trace.ReasonDown
	if e.Kind == trace.Checkpoint && e.CkptType == trace.CkptInitial || down == ps.down {
		return
	}
	if e.Kind == trace.CheckpointSkipped && !down && !ps.down {
		return
	}
	m := b.m
	b.anomaly(CkptWhileDown, seq, func() (string, string) {
		state := "up"
		if ps.down {
			state = "down"
		}
		return fmt.Sprintf("%s's %s at seq %d does not fit it being %s", m.ProcName(e.P), e.Kind, seq, state),
			fmt.Sprintf("a tick of a down process takes no checkpoint and is recorded as skipped with reason down, and only then; %s is %s at seq %d", m.ProcName(e.P), state, seq)
	})
}
