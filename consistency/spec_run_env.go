package consistency

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// The run spec against the source trace (SPEC §3): the environment
// events — timer ticks and fails — happen at their trace times, one run
// event each; at one instant a process's trace-indexed items keep the
// trace's order; and in a run that claims §3's timing (replayTimed) a
// copy arrives its message's delay after its send and a receive takes
// its message's copies in arrival order, a process restarts its fail's
// down time after it. Each was found by an adversarial review: a
// receipt moved before its arrival, and so before a flush, made a PK log
// legitimate and kept orphans; an early restart passed; a run that put
// a receipt before the flush the trace lists first at its instant, and
// logged it there, kept a receipt the crash loses.

// envSpec is what the run spec keeps of the source trace.
type envSpec struct {
	src *trace.Trace // comparable source trace, or nil
	// ticks and fails are, per process, the trace indexes of its timer
	// ticks and fails still to come.
	ticks, fails [][]int32
	// lastEnv is the trace index of the tick or fail matched last, or
	// None; envAt and envIdx per process the time and trace index of the
	// latest tick or fail the run showed (nil until needed).
	lastEnv int32
	envAt   []trace.Time
	envIdx  []int32
	// request is, per process, the seq of the coordinated round request
	// it received and has not answered with a checkpoint, or None; nil
	// before the first request.
	request []int32
}

func newEnvSpec(m *history.Model) envSpec {
	env := envSpec{lastEnv: history.None}
	if src := m.Src; src != nil && len(src.Processes) == len(m.Run.Processes) {
		env.src = src
		np := len(m.Run.Processes)
		slot := func(e *trace.Event) int {
			switch {
			case e.P < 0 || int(e.P) >= np:
			case e.Kind == trace.Checkpoint:
				return int(e.P)
			case e.Kind == trace.Fail:
				return np + int(e.P)
			}
			return -1
		}
		// One backing array for every list.
		counts := make([]int, 2*np+1)
		for i := range src.Events {
			if k := slot(&src.Events[i]); k >= 0 {
				counts[k+1]++
			}
		}
		total := 0
		for _, n := range counts {
			total += n
		}
		all := make([][]int32, 2*np)
		buf := make([]int32, total)
		for k := range all {
			n := counts[k+1]
			all[k], buf = buf[:0:n], buf[n:]
		}
		for i := range src.Events {
			if k := slot(&src.Events[i]); k >= 0 {
				all[k] = append(all[k], int32(i))
			}
		}
		env.ticks, env.fails = all[:np:np], all[np:]
	}
	return env
}

// environment checks a basic checkpoint, a skipped tick or a fail
// against the source trace: environment events happen at their trace
// time, one run event per trace event.
func (s *runSpec) environment(seq int32, e *trace.RunEvent) {
	env := &s.env
	env.lastEnv = history.None
	if env.ticks == nil {
		return
	}
	q, what := &env.ticks[e.P], "timer tick"
	if e.Kind == trace.Fail {
		q, what = &env.fails[e.P], "fail"
	}
	if len(*q) > 0 && env.src.Events[(*q)[0]].T == e.T {
		s.afterOpsBefore(seq, e, (*q)[0])
		if env.envAt == nil {
			env.envAt, env.envIdx = make([]trace.Time, len(s.procs)), make([]int32, len(s.procs))
			for p := range env.envAt {
				env.envAt[p] = -1
			}
		}
		env.envAt[e.P], env.envIdx[e.P] = e.T, (*q)[0]
		env.lastEnv = (*q)[0]
		*q = (*q)[1:]
		return
	}
	next := "none is left"
	if len(*q) > 0 {
		next = fmt.Sprintf("the next is at t=%s", env.src.Events[(*q)[0]].T)
	}
	nor := ""
	if s.m.Alg == history.Coordinated && e.Kind == trace.Checkpoint {
		nor = " and answers no round request at its instant"
	}
	s.fail(equivalenceAt, []int32{seq}, func() (string, string) {
		return fmt.Sprintf("%s's %s at seq %d (t=%s) is no %s of the trace%s", s.name(e.P), e.Kind, seq, e.T, what, nor),
			fmt.Sprintf("environment events happen at their trace time, one run event for each, but of %s's %ss in the trace %s", s.name(e.P), what, next)
	})
}

// missing reports the trace's environment events the run does not show.
func (env *envSpec) missing(s *runSpec) {
	for p := range env.ticks {
		for _, q := range []struct {
			what string
			left []int32
		}{{"timer tick", env.ticks[p]}, {"fail", env.fails[p]}} {
			for _, i := range q.left {
				t := env.src.Events[i].T
				s.fail(equivalenceAt, nil, func() (string, string) {
					return fmt.Sprintf("the trace's %s of %s at t=%s is missing from the run", q.what, s.name(int32(p)), t),
						"environment events happen at their trace time, one run event for each, and a run ends only when none is pending"
				})
			}
		}
	}
}

// opAfterEnv checks op e against the tick or fail of its process the run
// showed before it at the same instant: the trace must list that one
// first too.
func (env *envSpec) opAfterEnv(s *runSpec, seq int32, e *trace.RunEvent) {
	if env.envAt == nil || env.envAt[e.P] != e.T {
		return
	}
	idx := env.envIdx[e.P]
	if oi := s.m.SrcIndex(e); oi != history.None && oi < idx {
		s.fail(equivalenceAt, []int32{seq}, func() (string, string) {
			return fmt.Sprintf("%s's %s (op %d) at seq %d comes after a tick or fail of its instant t=%s that the trace lists after it", s.name(e.P), e.Kind, e.Op, seq, e.T),
				fmt.Sprintf("at equal times the trace-indexed items happen in trace order (SPEC §3): the trace lists the %s (event %d) before the tick or fail (event %d), so the %s comes first", e.Kind, oi, idx, e.Kind)
		})
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
	r := s.m.Event(x)
	if ri := s.m.SrcIndex(r); r.T == e.T && ri != history.None && ri > idx {
		s.fail(equivalenceAt, []int32{seq}, func() (string, string) {
			return fmt.Sprintf("%s's %s at seq %d comes after its %s of %s at seq %d, at the same instant t=%s, which the trace lists after it", s.name(e.P), e.Kind, seq, r.Kind, s.m.MsgName(r.Msg), x, e.T),
				fmt.Sprintf("at equal times the trace-indexed items happen in trace order (SPEC §3): the trace lists the %s (event %d) before the %s (event %d), so the %s comes first", e.Kind, idx, r.Kind, ri, e.Kind)
		})
	}
}

// arrived checks the receipt or discard e of copy ci from the network,
// in a replay: it comes no earlier than the copy's arrival, and takes no
// copy while an earlier one of its message waits in the mailbox (copies
// of one message arrive in the order they were sent, each taking the
// message's delay). Only copies no receive took are judged there:
// whether a rollback put a copy back is the algorithm's rule.
func (env *envSpec) arrived(s *runSpec, seq int32, e *trace.RunEvent, ci int32) {
	m := s.m
	if !s.instants {
		return
	}
	d, ok := m.SrcDelay(e.Msg)
	if !ok {
		return
	}
	if snd := m.Copies.Send[ci]; snd != history.None && e.T < m.Event(snd).T+d {
		at := m.Event(snd).T + d
		verb := map[bool]string{true: "receives", false: "discards"}[e.Kind == trace.Recv]
		s.fail(equivalenceAt, []int32{seq}, func() (string, string) {
			return fmt.Sprintf("%s %s %s at seq %d, t=%s, before it arrives at t=%s", s.name(e.P), verb, m.MsgName(e.Msg), seq, e.T, at),
				fmt.Sprintf("copy %d of %s was sent at seq %d, t=%s, and a copy arrives its message's delay %s later (the source trace's), so no receive takes it, to deliver or discard it, before t=%s",
					e.Copy, m.MsgName(e.Msg), snd, m.Event(snd).T, d, at)
		})
	}
	if e.Via != trace.ViaNet {
		return
	}
	for k := int32(1); k < e.Copy; k++ {
		cj := m.Copies.Index(e.Msg, k)
		if cj < 0 || !s.b.Untaken(cj) || m.CopyTo(cj) != e.P {
			continue
		}
		snd := m.Copies.Send[cj]
		if at := m.Event(snd).T + d; at <= e.T {
			s.fail(equivalenceAt, []int32{seq}, func() (string, string) {
				return fmt.Sprintf("%s's receive at seq %d takes copy %d of %s while copy %d waits in its mailbox", s.name(e.P), seq, e.Copy, m.MsgName(e.Msg), k),
					fmt.Sprintf("a receive examines its message's copies in arrival order (SPEC §3), and copy %d, sent at seq %d, arrived at t=%s, before the receive at t=%s; it was neither delivered nor discarded first", k, snd, at, e.T)
			})
			return
		}
	}
}

// failedUntil records when the process that fail e made down restarts:
// its fail's down time after it (the matched trace fail's own, else
// restart_delay), in a replay.
func (env *envSpec) failedUntil(s *runSpec, e *trace.RunEvent) {
	ps := &s.procs[e.P]
	ps.restartAt = 0
	if env.lastEnv == history.None || !s.instants {
		return
	}
	down := env.src.Events[env.lastEnv].Down
	if down == 0 {
		down = s.m.Run.Options.Params.RestartDelay
	}
	ps.restartAt = e.T + down
}

// restartedAt checks the restart e against the time its fail set.
func (env *envSpec) restartedAt(s *runSpec, seq int32, e *trace.RunEvent) {
	ps := &s.procs[e.P]
	at := ps.restartAt
	ps.restartAt = 0
	if at == 0 || !s.b.Down(e.P) || e.T == at {
		return
	}
	m, f := s.m, s.b.LastFail(e.P)
	s.fail(equivalenceAt, []int32{seq}, func() (string, string) {
		return fmt.Sprintf("%s restarts at seq %d, t=%s, not at t=%s", s.name(e.P), seq, e.T, at),
			fmt.Sprintf("%s failed at seq %d, t=%s, and a process is down for its fail's down time (its own, else restart_delay), %s, so it restarts at t=%s",
				s.name(e.P), f, m.Event(f).T, at-m.Event(f).T, at)
	})
}

// Coordinated checkpointing places a round's checkpoints by protocol,
// not at timer ticks (docs/protocols.md): the initiator's tick starts a
// round with a basic checkpoint, and every other process takes its
// round checkpoint, also typed basic, when the request reaches it. So in
// a coordinated run a basic checkpoint is a timer tick of the trace
// unless it answers a round request that reached its process at the same
// instant and that no checkpoint has answered yet.

// roundRequested records a coordinated round's request arriving at its
// process, to be answered by a checkpoint.
func (env *envSpec) roundRequested(m *history.Model, seq int32, e *trace.RunEvent) {
	if m.Alg != history.Coordinated || e.Control != trace.ControlRequest {
		return
	}
	if env.request == nil {
		env.request = make([]int32, len(m.Run.Processes))
		for p := range env.request {
			env.request[p] = history.None
		}
	}
	env.request[e.P] = seq
}

// answersRound reports whether the basic checkpoint e answers a round
// request its process received at the same instant, and marks the
// request answered.
func (env *envSpec) answersRound(m *history.Model, e *trace.RunEvent) bool {
	if env.request == nil {
		return false
	}
	r := env.request[e.P]
	if r == history.None || m.Event(r).T != e.T {
		return false
	}
	env.request[e.P] = history.None
	return true
}
