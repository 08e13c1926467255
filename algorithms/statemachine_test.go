package algorithms_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// machine builds a trace one step at a time, as a running system would
// produce it: after every step the prefix must be a valid trace that
// both algorithms recover cleanly.
type machine struct {
	tr        trace.Trace
	now       trace.Time
	inFlight  []int32      // messages sent and not yet received
	downUntil []trace.Time // per process, when its latest failure ends
	fails     int
	checked   int // events in the prefix the invariant last held for
}

// unit is the time quantum of the steps' gaps.
const unit = trace.Second / 10

func newMachine(t *rapid.T) *machine {
	n := rapid.IntRange(2, 5).Draw(t, "procs")
	m := &machine{downUntil: make([]trace.Time, n)}
	for i := range n {
		m.tr.Processes = append(m.tr.Processes, gen.ProcName(i))
	}
	m.tr.Params = trace.Params{
		RestartDelay: rapid.SampledFrom([]trace.Time{trace.Second / 2, trace.Second, 2 * trace.Second}).Draw(t, "restart_delay"),
		ControlDelay: rapid.SampledFrom([]trace.Time{0, trace.Second / 10, trace.Second / 2}).Draw(t, "control_delay"),
	}
	return m
}

// step advances time by a drawn gap and appends an event of kind at p.
func (m *machine) step(t *rapid.T, kind trace.Kind, p, to, msg int32, down trace.Time) {
	m.now += trace.Time(rapid.IntRange(0, 5).Draw(t, "gap")) * unit
	m.tr.Events = append(m.tr.Events, trace.Event{T: m.now, Kind: kind, P: p, To: to, Msg: msg, Down: down})
}

func (m *machine) proc(t *rapid.T) int32 {
	return int32(rapid.IntRange(0, len(m.tr.Processes)-1).Draw(t, "p"))
}

func (m *machine) send(t *rapid.T) {
	p := m.proc(t)
	to := int32(rapid.IntRange(0, len(m.tr.Processes)-2).Draw(t, "to"))
	if to >= p {
		to++
	}
	msg := int32(len(m.tr.Msgs))
	m.tr.Msgs = append(m.tr.Msgs, gen.MsgName(msg))
	m.step(t, trace.Send, p, to, msg, 0)
	m.inFlight = append(m.inFlight, msg)
}

func (m *machine) recv(t *rapid.T) {
	if len(m.inFlight) == 0 {
		t.Skip("nothing in flight")
	}
	i := rapid.IntRange(0, len(m.inFlight)-1).Draw(t, "which")
	msg := m.inFlight[i]
	m.inFlight = append(m.inFlight[:i], m.inFlight[i+1:]...)
	var to int32
	for _, e := range m.tr.Events {
		if e.Kind == trace.Send && e.Msg == msg {
			to = e.To
		}
	}
	m.step(t, trace.Recv, to, trace.None, msg, 0)
}

func (m *machine) env(kind trace.Kind) func(*rapid.T) {
	return func(t *rapid.T) {
		m.step(t, kind, m.proc(t), trace.None, trace.None, 0)
	}
}

// fail crashes a process that is up (SPEC §3 would ignore a fail of a
// down one), for the restart delay or a drawn down time.
func (m *machine) fail(t *rapid.T) {
	if m.fails >= 4 {
		t.Skip("enough failures")
	}
	p := m.proc(t)
	down := trace.Time(rapid.IntRange(0, 4).Draw(t, "down")) * trace.Second / 4
	m.now += trace.Time(rapid.IntRange(0, 5).Draw(t, "gap")) * unit
	if m.downUntil[p] > m.now {
		t.Skip("process is down")
	}
	m.tr.Events = append(m.tr.Events, trace.Event{T: m.now, Kind: trace.Fail, P: p, To: trace.None, Msg: trace.None, Down: down})
	d := down
	if d == 0 {
		d = m.tr.Params.RestartDelay
	}
	m.downUntil[p] = m.now + d
	m.fails++
}

// check is the invariant: the prefix validates, and both algorithms'
// runs of it verify with every property pass (or n/a where the
// algorithm promises nothing).
func (m *machine) check(t *rapid.T) {
	if len(m.tr.Events) == m.checked && m.checked > 0 {
		return // a skipped action changed nothing
	}
	m.checked = len(m.tr.Events)
	tr := m.tr
	tr.Events = append([]trace.Event(nil), m.tr.Events...)
	tr.Msgs = append([]string(nil), m.tr.Msgs...)
	if err := trace.Validate(&tr); err != nil {
		t.Fatalf("prefix invalid: %v\n%s", err, traceText(&tr))
	}
	for _, a := range sound {
		run := replayWith(t, &tr, a[0], a[1])
		assertClean(t, &tr, run, a[0], consistency.Check(run, &tr))
	}
}

// TestPropertyStateMachine interleaves sends, receives of in-flight
// messages, internal ops, checkpoint ticks, flushes and failures of live
// processes, and checks the invariant after every step. rapid's
// -rapid.steps bounds the length (30 on average by default). Each step
// replays and checks the whole prefix twice, so to stay within the CI
// budget only about a third of the -rapid.checks cases run a machine:
// the choice is a drawn value, not a counter, so that rapid's shrinking
// (which re-runs the property) still reproduces a failure, and shrinks
// that value towards 0, which runs.
func TestPropertyStateMachine(t *testing.T) {
	t.Parallel() // among the slowest: overlap them on the cores
	rapid.Check(t, func(t *rapid.T) {
		if rapid.IntRange(0, 2).Draw(t, "skip") != 0 {
			return
		}
		m := newMachine(t)
		t.Repeat(map[string]func(*rapid.T){
			"send":     m.send,
			"recv":     m.recv,
			"internal": m.env(trace.Internal),
			"tick":     m.env(trace.Checkpoint),
			"flush":    m.env(trace.Flush),
			"fail":     m.fail,
			"":         m.check,
		})
	})
}
