// Package trace is the model of ckpt's two documents — the execution
// trace (SPEC §2) and the run (SPEC §6) — as compact in-memory values,
// with the rules a trace must follow (validate.go). Package codec reads
// and writes them.
//
// Process names and message ids are interned: events refer to processes by
// their index in Processes and to messages by their index in Msgs, so the
// replay engine and the checker index slices instead of hashing strings in
// their hot loops.
package trace

import "cmp"

// None marks an absent process, message, op, checkpoint or number in the
// int32 fields of Event and RunEvent.
const None = -1

// Kind is the kind of a trace event or run event. Trace events use only
// Send through Fail; runs use all of them except Flush.
type Kind uint8

// Event kinds. The order is part of no format: names are what is written.
const (
	KindInvalid Kind = iota
	Send
	Recv
	Internal
	Checkpoint
	Flush
	Fail
	CheckpointSkipped
	Log
	Discard
	Hold
	Unhold
	Restart
	Rollback
	ControlSend
	ControlRecv
	Resume
	End
	Unconsumed
	// Block: the algorithm holds the whole process (it executes no op)
	// from here to its next `resume`; `until` says what for. Written for
	// coordinated checkpointing's rounds (docs/formats.md); PK's hold
	// after a restart is implied by the restart and not written.
	Block
	numKinds
)

var kindNames = [numKinds]string{
	KindInvalid:       "",
	Send:              "send",
	Recv:              "recv",
	Internal:          "internal",
	Checkpoint:        "checkpoint",
	Flush:             "flush",
	Fail:              "fail",
	CheckpointSkipped: "checkpoint_skipped",
	Log:               "log",
	Discard:           "discard",
	Hold:              "hold",
	Unhold:            "unhold",
	Restart:           "restart",
	Rollback:          "rollback",
	ControlSend:       "control_send",
	ControlRecv:       "control_recv",
	Resume:            "resume",
	End:               "end",
	Unconsumed:        "unconsumed",
	Block:             "block",
}

// String returns the kind's name as written in files ("?" out of
// range, as the run's enums).
func (k Kind) String() string { return name(kindNames[:], uint8(k)) }

// IsOp reports whether k is a program operation (send, recv, internal):
// the piecewise-deterministic part of a process, as opposed to environment
// events that happen at absolute times.
func (k Kind) IsOp() bool { return k == Send || k == Recv || k == Internal }

// Busy reports which processes have events of their own in t, and how
// many: only they send, receive, checkpoint, fail or roll back, so only
// they need a vector time of their own (an idle process's is the zero
// vector). PK's algorithm and the memory estimates size vectors by it.
func (t *Trace) Busy() (has []bool, n int) {
	has = make([]bool, len(t.Processes))
	for i := range t.Events {
		if p := t.Events[i].P; p >= 0 && int(p) < len(has) && !has[p] {
			has[p] = true
			n++
		}
	}
	return has, n
}

// MovesVector reports whether an event of kind k can change its process's
// vector time (an op, a checkpoint, a failure and its restore): a process
// with none of these keeps the zero vector, which lets PK's algorithm and
// checker skip vectors for idle processes.
func (k Kind) MovesVector() bool {
	return k.IsOp() || k == Checkpoint || k == Fail || k == Restart || k == Rollback
}

// IsTraceKind reports whether k may appear in an execution trace.
func (k Kind) IsTraceKind() bool { return k >= Send && k <= Fail }

// Params are the replay defaults a trace may carry (SPEC §2). A zero field
// means "not given"; WithDefaults fills them in.
type Params struct {
	RestartDelay Time
	ControlDelay Time
	DefaultDelay Time
}

// Default parameter values of SPEC §2.
const (
	DefaultRestartDelay = 1 * Second
	DefaultControlDelay = Second / 2
	DefaultDefaultDelay = 1 * Second
)

// DownOf is how long fail event e keeps its process down under p: its
// own down time, or p's restart delay.
func (p Params) DownOf(e *Event) Time {
	if e.Down != 0 {
		return e.Down
	}
	return p.RestartDelay
}

// WithDefaults returns p with every unset field set to its default.
func (p Params) WithDefaults() Params {
	return Params{RestartDelay: DefaultRestartDelay, ControlDelay: DefaultControlDelay, DefaultDelay: DefaultDefaultDelay}.Override(p)
}

// Override returns p with every field that o sets replaced by o's value;
// command-line flags override a trace's params this way.
func (p Params) Override(o Params) Params {
	return Params{
		RestartDelay: cmp.Or(o.RestartDelay, p.RestartDelay),
		ControlDelay: cmp.Or(o.ControlDelay, p.ControlDelay),
		DefaultDelay: cmp.Or(o.DefaultDelay, p.DefaultDelay),
	}
}

// Event is one event of an execution trace.
type Event struct {
	T    Time
	Kind Kind
	// P is the index of the process the event happens at.
	P int32
	// To is the receiver of a Send, else None.
	To int32
	// Msg is the interned message of a Send or Recv, else None.
	Msg int32
	// Down is how long a Fail keeps the process down; 0 means the
	// restart_delay in force.
	Down Time
	// Label indexes Trace.Labels (Trace.Label reads it); 0 is no label.
	// An index, not a string, keeps Event free of pointers: the
	// collector never scans a trace's events (a tenth of the heap at
	// 10^7 events, most of it reserved and not yet filled, whose pages
	// its scan would otherwise fault in; docs/performance.md).
	Label int32
}

// Message describes one message id of a trace: where it is sent and where
// (if anywhere) it is received, as indexes into Trace.Events.
type Message struct {
	Send int32
	Recv int32 // None if the trace never receives it
}

// Trace is a decoded, validated execution trace.
type Trace struct {
	// Name is the file the trace was read from ("-" for stdin), used in
	// messages and reports.
	Name      string
	Processes []string
	Params    Params
	// Msgs holds the message ids; Event.Msg indexes it.
	Msgs []string
	// Messages is parallel to Msgs.
	Messages []Message
	Events   []Event
	// Labels holds the events' labels; Labels[0] is "", no label.
	Labels []string
}

// Label returns ev's label, "" for none. An event copied into another
// trace must take its Labels with it: an index into no table panics
// rather than read as "no label".
func (t *Trace) Label(ev *Event) string {
	if ev.Label == 0 {
		return ""
	}
	return t.Labels[ev.Label]
}

// AddLabel stores s in t.Labels and returns its index for Event.Label;
// "" gives 0. A label equal to the last one stored reuses its index, so
// a trace whose consecutive events share a label keeps one copy.
func (t *Trace) AddLabel(s string) int32 {
	if s == "" {
		return 0
	}
	if n := len(t.Labels); n > 1 && t.Labels[n-1] == s {
		return int32(n - 1)
	}
	if len(t.Labels) == 0 {
		t.Labels = append(t.Labels, "")
	}
	t.Labels = append(t.Labels, s)
	return int32(len(t.Labels) - 1)
}
