package history

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/trace"
)

// The network and the down time of SPEC §3, judged against the source
// trace with the params a run records it was replayed with
// (ReplayTimed): a copy sent at s arrives at s + d, d its message's
// delay in the trace (default_delay when the trace never receives it);
// a receive takes its message's copies in arrival order; a process that
// fails at t restarts at t + its down time (the fail's own, else
// restart_delay). Found by adversarial reviews: a receipt moved before
// its arrival, and so before a flush, made a PK log legitimate and kept
// orphans; an early restart passed; a discard deleted and its copy
// listed unconsumed passed.

// srcDelay returns the source trace's delay of run message rm, or false
// when the run records no params or the source lacks the message.
func (b *Builder) srcDelay(rm int32) (trace.Time, bool) {
	w, m := &b.wf, b.m
	if w.src == nil || !ReplayTimed(m.Run) {
		return 0, false
	}
	sm := b.m.msgs.src(rm)
	if sm == None {
		return 0, false
	}
	msg := &w.src.Messages[sm]
	if msg.Recv == None {
		return m.Run.Options.Params.DefaultDelay, true
	}
	return w.src.Events[msg.Recv].T - w.src.Events[msg.Send].T, true
}

// arrived checks the receipt or discard e of copy ci from the network:
// it comes no earlier than the copy's arrival, and takes no copy while an earlier
// one of its message waits in the mailbox. Copies of one message arrive
// in the order they were sent (each takes the message's delay; one put
// back keeps its place), so an earlier copy that had arrived was
// delivered, discarded or held for first. Only copies no receive took
// are judged there: whether a rollback put a copy back is the
// algorithm's rule (log-replay-rules judges it), not the replay's.
func (b *Builder) arrived(seq int32, e *trace.RunEvent, ci int32) {
	m := b.m
	d, ok := b.srcDelay(e.Msg)
	if !ok {
		return
	}
	if snd := m.Copies.Send[ci]; snd != None && e.T < m.Run.Events[snd].T+d {
		at := m.Run.Events[snd].T + d
		verb := map[bool]string{true: "receives", false: "discards"}[e.Kind == trace.Recv]
		b.anomaly(ArrivalEarly, seq, func() (string, string) {
			return fmt.Sprintf("%s %s %s at seq %d, t=%s, before it arrives at t=%s", m.ProcName(e.P), verb, m.MsgName(e.Msg), seq, e.T, at),
				fmt.Sprintf("copy %d of %s was sent at seq %d, t=%s, and a copy arrives its message's delay %s later (the source trace's), so no receive takes it, to deliver or discard it, before t=%s",
					e.Copy, m.MsgName(e.Msg), snd, m.Run.Events[snd].T, d, at)
		})
	}
	if e.Via != trace.ViaNet {
		return
	}
	for k := int32(1); k < e.Copy; k++ {
		cj := m.Copies.Index(e.Msg, k)
		if cj < 0 || b.box.state[cj] != inBox || m.CopyTo(cj) != e.P {
			continue
		}
		snd := m.Copies.Send[cj]
		if at := m.Run.Events[snd].T + d; at <= e.T {
			b.anomaly(CopySkipped, seq, func() (string, string) {
				return fmt.Sprintf("%s's receive at seq %d takes copy %d of %s while copy %d waits in its mailbox", m.ProcName(e.P), seq, e.Copy, m.MsgName(e.Msg), k),
					fmt.Sprintf("a receive examines its message's copies in arrival order (SPEC §3), and copy %d, sent at seq %d, arrived at t=%s, before the receive at t=%s; it was neither delivered nor discarded first", k, snd, at, e.T)
			})
			return
		}
	}
}

// failedUntil records when the process that fail e made down restarts:
// its fail's down time after it, the fail being the source trace's at
// index idx (None: no comparable source, or no such fail).
func (b *Builder) failedUntil(e *trace.RunEvent, ps *procBuild, idx int32) {
	ps.restartAt = 0
	if idx == None || !ReplayTimed(b.m.Run) {
		return
	}
	down := b.wf.src.Events[idx].Down
	if down == 0 {
		down = b.m.Run.Options.Params.RestartDelay
	}
	ps.restartAt = e.T + down
}

// restartedAt checks the restart e against the time its fail set.
func (b *Builder) restartedAt(seq int32, e *trace.RunEvent, ps *procBuild) {
	at := ps.restartAt
	ps.restartAt = 0
	if at == 0 || !ps.down || e.T == at {
		return
	}
	m, f := b.m, ps.lastFail
	b.anomaly(RestartTime, seq, func() (string, string) {
		return fmt.Sprintf("%s restarts at seq %d, t=%s, not at t=%s", m.ProcName(e.P), seq, e.T, at),
			fmt.Sprintf("%s failed at seq %d, t=%s, and a process is down for its fail's down time (its own, else restart_delay), %s, so it restarts at t=%s",
				m.ProcName(e.P), f, m.Run.Events[f].T, at-m.Run.Events[f].T, at)
	})
}
