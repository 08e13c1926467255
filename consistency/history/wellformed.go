package history

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ckpt-dev/ckpt/trace"
)

// wellFormed holds what the builder needs to check that a run keeps the
// run format's bookkeeping (SPEC §3, §6): time order, one end per process
// after everything else, control messages that arrive once each, and —
// against the source trace — the environment events at their times.
type wellFormed struct {
	lastT trace.Time
	ended int32 // seq of the first end event, or None
	// inFlight are the seqs of the control messages sent and not yet
	// received, per key in send order. A map, not a list: a failure
	// announcement to n processes puts n in flight at once, and a list
	// made their arrivals quadratic (200,000 processes: 42 s).
	inFlight map[ctlKey][]int32
	// ticks and fails are, per process, the trace indexes of its timer
	// ticks and fails still to come; nil without a comparable source
	// trace.
	ticks, fails [][]int32
	// src is the source trace when comparable (nil otherwise), and
	// nextFlush the index of its first event not passed yet (flushes.go).
	src       *trace.Trace
	nextFlush int
	// nextAt is the index of the source trace's first event after the
	// instant of the last PK log event judged, and flushAt and tickAt
	// are, per process, the time of its latest flush and tick up to that
	// instant (flushes.go, logBacked); nil until the first log event.
	nextAt          int
	flushAt, tickAt []trace.Time
	// flushIdx and tickIdx are the trace indexes of those, and failAt
	// the time of its latest fail up to that instant: a flush or tick
	// after a fail of the same instant is not counted.
	flushIdx, tickIdx []int32
	failAt            []trace.Time
	// lastEnv is the trace index of the tick or fail environment matched
	// the last event it judged with, or None.
	lastEnv int32
	// progIdx holds per process the trace indexes of its ops, and envAt
	// and envIdx per process the time and trace index of its latest tick
	// or fail the run showed (equal_times.go); nil until needed.
	progIdx [][]int32
	envIdx  []int32
	envAt   []trace.Time
	// request is, per process, the seq of the coordinated round request
	// it received and has not answered with a checkpoint, or None; nil
	// before the first request (rounds.go).
	request []int32
}

// ctlKey identifies a control message in flight (bodies are left out: a
// foreign run may omit them on one end).
type ctlKey struct {
	from, to int32
	control  trace.Control
	failure  int32
}

type inFlight struct {
	key ctlKey
	seq int32 // of its control_send
}

func newWellFormed(run *trace.Run, src *trace.Trace) wellFormed {
	w := wellFormed{ended: None, lastEnv: None}
	if src == nil || len(src.Processes) != len(run.Processes) {
		return w
	}
	w.ticks, w.fails = envIndexes(src, len(run.Processes))
	w.src = src
	return w
}

// envIndexes returns, per process, the trace indexes of its ticks and of
// its fails, all in one backing array.
func envIndexes(src *trace.Trace, np int) (ticks, fails [][]int32) {
	slot := func(te *trace.Event) int {
		switch {
		case te.P < 0 || int(te.P) >= np:
			return -1
		case te.Kind == trace.Checkpoint:
			return int(te.P)
		case te.Kind == trace.Fail:
			return np + int(te.P)
		}
		return -1
	}
	out := bucket(src, 2*np, slot)
	return out[:np:np], out[np:]
}

// bucket lists the indexes of src's events by slot (-1: none), in trace
// order, all in one backing array.
func bucket(src *trace.Trace, n int, slot func(*trace.Event) int) [][]int32 {
	counts := make([]int, n+1)
	for i := range src.Events {
		if s := slot(&src.Events[i]); s >= 0 {
			counts[s+1]++
		}
	}
	for s := 1; s <= n; s++ {
		counts[s] += counts[s-1]
	}
	all := make([]int32, counts[n])
	out := make([][]int32, n)
	for s := range out {
		out[s] = all[counts[s]:counts[s]:counts[s+1]]
	}
	for i := range src.Events {
		if s := slot(&src.Events[i]); s >= 0 {
			out[s] = append(out[s], int32(i))
		}
	}
	return out
}

// order checks that events come in time order and, but for `unconsumed`
// records, none after the run's end.
func (b *Builder) order(seq int32, e *trace.RunEvent) {
	w := &b.wf
	if seq > 0 && e.T < w.lastT {
		t := w.lastT
		b.anomaly(TimeOrder, seq, func() (string, string) {
			msg := fmt.Sprintf("event %d at t=%s comes after one at t=%s", seq, e.T, t)
			return msg, wellFormedBecause(msg + ": a run lists its events in simulated time order")
		})
	}
	w.lastT = max(w.lastT, e.T)
	switch {
	case e.Kind == trace.End:
		if w.ended == None {
			w.ended = seq
		}
	case e.Kind != trace.Unconsumed && w.ended != None:
		end := w.ended
		b.anomaly(AfterEnd, seq, func() (string, string) {
			msg := fmt.Sprintf("%s at seq %d comes after the run's end at seq %d", e.Kind, seq, end)
			return msg, wellFormedBecause(msg + ": a run ends when no event is pending, and then records only end and unconsumed events")
		})
	}
}

// end records a process's end event: one per process.
func (b *Builder) end(seq int32, e *trace.RunEvent, ps *procBuild) {
	if ps.end != None {
		first := ps.end
		b.anomaly(EndTwice, seq, func() (string, string) {
			msg := fmt.Sprintf("%s ends twice, at seq %d and %d", b.m.ProcName(e.P), first, seq)
			return msg, wellFormedBecause(msg)
		})
		return
	}
	ps.end = seq
}

func ctlKeyOf(e *trace.RunEvent, from, to int32) ctlKey {
	return ctlKey{from: from, to: to, control: e.Control, failure: e.Failure}
}

// controlSent puts a control message in flight.
func (b *Builder) controlSent(seq int32, e *trace.RunEvent) {
	if b.wf.inFlight == nil {
		b.wf.inFlight = make(map[ctlKey][]int32)
	}
	k := ctlKeyOf(e, e.P, e.Peer)
	b.wf.inFlight[k] = append(b.wf.inFlight[k], seq)
}

// controlArrived takes a control message out of flight: the network
// delivers each control message once (SPEC §3), and unchanged: the body
// received is the body sent. Of the messages in flight with its key, it
// takes the first with its body, else the first one, whose body then
// differs (a foreign run may leave the body out on one end: no body
// differs from an absent one).
func (b *Builder) controlArrived(seq int32, e *trace.RunEvent) {
	k := ctlKeyOf(e, e.Peer, e.P)
	w := &b.wf
	if q := w.inFlight[k]; len(q) > 0 {
		// The one sent with this body, else the first: its body changed.
		i := slices.IndexFunc(q, func(sent int32) bool { return sameBody(b.m.Run, &b.m.Run.Events[sent], e) })
		if i < 0 {
			b.bodyChanged(seq, q[0], e)
			i = 0
		}
		b.controlDelayed(seq, q[i], e)
		if len(q) == 1 {
			delete(w.inFlight, k)
		} else {
			w.inFlight[k] = slices.Delete(q, i, i+1)
		}
		return
	}
	b.anomaly(ControlUnsent, seq, func() (string, string) {
		msg := fmt.Sprintf("%s receives a %s control message at seq %d that %s never sent", b.m.ProcName(e.P), e.Control, seq, b.m.ProcName(e.Peer))
		return msg, wellFormedBecause(msg + " (or not for that failure, or it arrived already)")
	})
}

// controlDelayed checks that a control message arrives control_delay
// after its send (SPEC §3), in a run that records the params it was
// replayed with (ReplayTimed).
func (b *Builder) controlDelayed(seq, sent int32, e *trace.RunEvent) {
	params := &b.m.Run.Options.Params
	at := b.m.Run.Events[sent].T + params.ControlDelay
	if !ReplayTimed(b.m.Run) || e.T == at {
		return
	}
	m := b.m
	b.anomaly(ControlLate, seq, func() (string, string) {
		return fmt.Sprintf("%s receives a %s control message at seq %d, t=%s, not at t=%s", m.ProcName(e.P), e.Control, seq, e.T, at),
			fmt.Sprintf("control messages take control_delay %s (the run's params), and this one was sent at seq %d, t=%s", params.ControlDelay, sent, m.Run.Events[sent].T)
	})
}

// ReplayTimed reports whether run claims SPEC §3's timing: a replay
// (no options.timing) that records the params it was replayed with, as
// every run ckpt replays does. A recorded run keeps its system's times,
// another implementation's its own network's, and a hand-made one may
// leave them out (docs/checker.md, "Recorded runs").
func ReplayTimed(run *trace.Run) bool {
	p := &run.Options.Params
	return run.Options.Timing == "" && p.RestartDelay > 0 && p.ControlDelay > 0 && p.DefaultDelay > 0
}

// environment checks a basic checkpoint, a skipped tick or a fail against
// the source trace: environment events happen at their trace time
// (SPEC §3), one run event per trace event.
func (b *Builder) environment(seq int32, e *trace.RunEvent) {
	w := &b.wf
	w.lastEnv = None
	if w.ticks == nil {
		return
	}
	q, what := &w.ticks[e.P], "timer tick"
	if e.Kind == trace.Fail {
		q, what = &w.fails[e.P], "fail"
	}
	if len(*q) > 0 && w.src.Events[(*q)[0]].T == e.T {
		b.afterOpsBefore(seq, e, (*q)[0])
		b.envPassed(e, (*q)[0])
		w.lastEnv = (*q)[0]
		*q = (*q)[1:]
		return
	}
	next := "none is left"
	if len(*q) > 0 {
		next = fmt.Sprintf("the next is at t=%s", w.src.Events[(*q)[0]].T)
	}
	nor := ""
	if b.m.Alg == Coordinated && e.Kind == trace.Checkpoint {
		nor = " and answers no round request at its instant"
	}
	b.anomaly(EnvironmentMismatch, seq, func() (string, string) {
		return fmt.Sprintf("%s's %s at seq %d (t=%s) is no %s of the trace%s", b.m.ProcName(e.P), e.Kind, seq, e.T, what, nor),
			fmt.Sprintf("environment events happen at their trace time, one run event for each, but of %s's %ss in the trace %s", b.m.ProcName(e.P), what, next)
	})
}

// finishWellFormed reports what the end of the run leaves open: processes
// with no end, control messages never received, environment events of
// the trace the run does not show, copies in a mailbox the run does not
// list, ops executed by a process that never restarted.
func (b *Builder) finishWellFormed() {
	m := b.m
	for p := range b.procs {
		if b.procs[p].end == None {
			b.anomaly(EndMissing, None, func() (string, string) {
				msg := fmt.Sprintf("%s has no end event", m.ProcName(int32(p)))
				return msg, wellFormedBecause(msg + ": a run records per process how it ended")
			})
		}
	}
	for _, c := range b.wf.pending() {
		b.anomaly(ControlUnreceived, c.seq, func() (string, string) {
			msg := fmt.Sprintf("the %s control message %s sends at seq %d never arrives", c.key.control, m.ProcName(c.key.from), c.seq)
			return msg, wellFormedBecause(msg + ": the network delivers every control message, and a run ends only when none is pending")
		})
	}
	b.finishEnvironment()
	b.finishMailboxes()
	for p := range b.procs {
		if ps := &b.procs[p]; ps.down {
			b.opsWhileDown(ps, None)
		}
	}
}

// pending lists the control messages still in flight, in send order.
func (w *wellFormed) pending() []inFlight {
	var out []inFlight
	for k, seqs := range w.inFlight {
		for _, s := range seqs {
			out = append(out, inFlight{k, s})
		}
	}
	slices.SortFunc(out, func(a, b inFlight) int { return cmp.Compare(a.seq, b.seq) })
	return out
}

// finishEnvironment reports the trace's environment events the run does
// not show.
func (b *Builder) finishEnvironment() {
	w := &b.wf
	for p := range w.ticks {
		b.missingEnvironment(int32(p), "timer tick", w.ticks[p])
		b.missingEnvironment(int32(p), "fail", w.fails[p])
	}
}

func (b *Builder) missingEnvironment(p int32, what string, left []int32) {
	for _, i := range left {
		t := b.wf.src.Events[i].T
		b.anomaly(EnvironmentMismatch, None, func() (string, string) {
			return fmt.Sprintf("the trace's %s of %s at t=%s is missing from the run", what, b.m.ProcName(p), t),
				"environment events happen at their trace time, one run event for each, and a run ends only when none is pending"
		})
	}
}

// finishMailboxes reports copies still in a mailbox that no `unconsumed`
// record lists (SPEC §3), for the algorithms whose mailbox the model
// knows exactly: MS and PK.
func (b *Builder) finishMailboxes() {
	m := b.m
	if !m.Alg.Recovers() || b.wf.ended == None {
		return
	}
	for ci := range b.box.state {
		if !b.box.there(int32(ci)) || m.CopyTo(int32(ci)) == None {
			continue
		}
		send, to := m.Copies.Send[ci], m.CopyTo(int32(ci))
		b.anomaly(MailboxUnlisted, send, func() (string, string) {
			e := m.Event(send)
			return fmt.Sprintf("copy %d of %s is left in %s's mailbox, but no unconsumed record lists it", e.Copy, m.MsgName(e.Msg), m.ProcName(to)),
				fmt.Sprintf("copy %d of %s was sent at seq %d and no receive or discard took it (or a rollback put it back), so it is still in %s's mailbox at the end, where the run must list it as unconsumed",
					e.Copy, m.MsgName(e.Msg), send, m.ProcName(to))
		})
	}
}

// opsWhileDown reports the app ops a process executed while down, other
// than the ones a PK restart at seq restart re-executes at its own time.
func (b *Builder) opsWhileDown(ps *procBuild, restart int32) {
	m := b.m
	if !m.Alg.Recovers() {
		ps.downOps = ps.downOps[:0]
		return
	}
	for _, s := range ps.downOps {
		if restart != None && m.Alg == PK && m.Event(s).T == m.Event(restart).T {
			continue
		}
		b.anomaly(OpWhileDown, s, func() (string, string) {
			e := m.Event(s)
			return fmt.Sprintf("%s executes op %d at seq %d while it is down", m.ProcName(e.P), e.Op, s),
				fmt.Sprintf("%s failed at seq %d and executes nothing until it restarts (a PK restart re-executes ops at its own time), but %s comes before that",
					m.ProcName(e.P), ps.lastFail, m.Describe(s))
		})
	}
	ps.downOps = ps.downOps[:0]
}

// bodyChanged reports a control message received with another body
// than the one it was sent with at seq sent.
func (b *Builder) bodyChanged(seq, sent int32, e *trace.RunEvent) {
	m := b.m
	b.anomalyPair(ControlBodyChanged, sent, seq, func() (string, string) {
		msg := fmt.Sprintf("%s receives a %s control message at seq %d whose body differs from the one %s sent at seq %d",
			m.ProcName(e.P), e.Control, seq, m.ProcName(e.Peer), sent)
		return msg, wellFormedBecause(fmt.Sprintf("the network delivers a control message unchanged, but %s sent %s at seq %d and %s received %s at seq %d",
			m.ProcName(e.Peer), DescribeBody(m, m.Run.Body(m.Event(sent))), sent, m.ProcName(e.P), DescribeBody(m, m.Run.Body(e)), seq))
	})
}

// sameBody reports whether two control events carry the same body, or
// one of them none. Bodies the engine shares (one index) are equal
// without a look; a token's receipt list is compared entry by entry.
func sameBody(run *trace.Run, a, b *trace.RunEvent) bool {
	if a.Body == b.Body || a.Body == None || b.Body == None {
		return true
	}
	x, y := run.Body(a), run.Body(b)
	if x.Origin != y.Origin || x.Count != y.Count || x.R != y.R || x.Inc != y.Inc || x.K != y.K {
		return false
	}
	return x.SameReceived(y)
}

// DescribeBody renders a control body for because-chains, its numbers
// as the run writes them: {origin P0, count 1, r 2}.
func DescribeBody(m *Model, c *trace.ControlBody) string {
	if c == nil {
		return "no body"
	}
	var parts []string
	if c.Origin != None {
		parts = append(parts, "origin "+m.ProcName(c.Origin))
	}
	for _, f := range []struct {
		name string
		v    int32
	}{{"count", c.Count}, {"r", c.R}, {"inc", c.Inc}, {"k", c.K}} {
		if f.v != None {
			parts = append(parts, fmt.Sprintf("%s %d", f.name, f.v))
		}
	}
	if l := c.ReceivedList(); c.Receipts != nil || c.Received != nil {
		parts = append(parts, fmt.Sprintf("%d receipts", len(l)))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
