package trace

import (
	"fmt"
	"strconv"
)

// rawEvent is a trace event as read, before its names are resolved: the
// small reusable wire form every decoder and the Builder fill in. Names
// are byte slices into the decoder's scratch space, so reading an event
// allocates nothing unless it introduces a new message id or a label.
type rawEvent struct {
	// t and down are the times as read; tf and downf the numbers, for
	// messages, when they are out of range (tOK, downOK false).
	t       Time
	tf      float64
	tOK     bool
	hasT    bool
	kind    []byte
	hasKind bool
	p       []byte
	hasP    bool
	to      []byte
	hasTo   bool
	msg     []byte
	hasMsg  bool
	down    Time
	downf   float64
	downOK  bool
	hasDown bool
	label   []byte
	// line is the event's line in a JSON Lines file, else 0.
	line int
}

func (r *rawEvent) reset() {
	*r = rawEvent{kind: r.kind[:0], p: r.p[:0], to: r.to[:0], msg: r.msg[:0], label: r.label[:0]}
}

// assembler builds and validates a Trace one event at a time, as the
// events arrive from a decoder or a Builder. Process names are interned as
// they are met; when a JSON document lists its events before its
// processes, the indexes are provisional and finish renumbers them, so
// the events are never held twice.
type assembler struct {
	tr    *Trace
	jsonl bool
	// names holds process names by (provisional) index.
	names   []string
	procIdx map[string]int32
	// known is set once the header's process list is in: from then on an
	// unlisted name is an error at once.
	known bool
	// firstUse[i] is the first event naming provisional process i.
	firstUse []int32
	// msgs interns message ids into tr.Msgs.
	msgs msgTable
	// pendingLine remembers the line of a receive whose send has not
	// been seen yet, to report it if the send comes later.
	pendingLine map[int32]int
	lastT       Time
	hasProcs    bool
}

func newAssembler(name string) *assembler {
	return &assembler{
		tr:          &Trace{Name: name},
		procIdx:     make(map[string]int32),
		msgs:        newMsgTable(),
		pendingLine: make(map[int32]int),
	}
}

func (a *assembler) errAt(event, line int, format string, args ...any) *InputError {
	if !a.jsonl && event >= 0 {
		line = 0
	}
	return &InputError{File: a.tr.Name, Event: event, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func (a *assembler) headerErr(format string, args ...any) *InputError {
	return &InputError{File: a.tr.Name, Event: -1, Msg: fmt.Sprintf(format, args...)}
}

// checkProcesses applies SPEC §2's rules to a process list.
func checkProcesses(procs []string) string {
	if len(procs) == 0 {
		return `"processes" must list at least one process`
	}
	seen := make(map[string]struct{}, len(procs))
	for _, p := range procs {
		if p == "" {
			return "process names must not be empty"
		}
		if _, dup := seen[p]; dup {
			return fmt.Sprintf("duplicate process name %q", p)
		}
		seen[p] = struct{}{}
	}
	return ""
}

// setProcesses installs the header's process list.
func (a *assembler) setProcesses(procs []string) error {
	if a.hasProcs {
		return a.headerErr(`"processes" given twice`)
	}
	if msg := checkProcesses(procs); msg != "" {
		return a.headerErr("%s", msg)
	}
	a.hasProcs = true
	a.tr.Processes = procs
	if len(a.names) == 0 {
		a.names = append(a.names, procs...)
		for i, p := range procs {
			a.procIdx[p] = int32(i)
		}
		a.known = true
	}
	return nil
}

// proc resolves a process name for event i.
func (a *assembler) proc(name []byte, i, line int) (int32, error) {
	if idx, ok := a.procIdx[string(name)]; ok {
		return idx, nil
	}
	if a.known {
		return None, a.errAt(i, line, "unknown process %q", name)
	}
	if len(name) == 0 {
		return None, a.errAt(i, line, "process name must not be empty")
	}
	idx := int32(len(a.names))
	s := string(name)
	a.names = append(a.names, s)
	a.procIdx[s] = idx
	a.firstUse = append(a.firstUse, int32(i))
	return idx, nil
}

// message interns a message id.
func (a *assembler) message(id []byte) int32 {
	idx, slot := a.msgs.find(a.tr.Msgs, id)
	if idx != None {
		return idx
	}
	idx = int32(len(a.tr.Msgs))
	a.tr.Msgs = append(grow(a.tr.Msgs), a.msgs.str(id))
	a.tr.Messages = append(grow(a.tr.Messages), Message{Send: None, Recv: None})
	a.msgs.insert(a.tr.Msgs, id, idx, slot)
	return idx
}

// reserve allocates room for n events (an upper bound from the input
// size), and for n/4 messages: a message takes a send and a receive,
// and ckpt's traces average about 53 bytes an event against the
// bound's 36, so n/4 leaves a margin. Beyond, the tables double.
func (a *assembler) reserve(n int) {
	a.tr.Events = make([]Event, 0, n)
	a.tr.Msgs = make([]string, 0, n/4)
	a.tr.Messages = make([]Message, 0, n/4)
	a.msgs.reserve(n / 8)
}

// setParam checks and installs one of the header's params; ok and v
// are as scanner.seconds returns them.
func (a *assembler) setParam(key string, t Time, ok bool, v float64) error {
	if !ok || t <= 0 {
		return a.headerErr("%s", badSeconds("params."+key, v, true))
	}
	switch key {
	case "restart_delay":
		a.tr.Params.RestartDelay = t
	case "control_delay":
		a.tr.Params.ControlDelay = t
	case "default_delay":
		a.tr.Params.DefaultDelay = t
	}
	return nil
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// add validates r and appends it as the next event.
func (a *assembler) add(r *rawEvent) error {
	i := len(a.tr.Events)
	line := r.line
	if !r.hasT {
		return a.errAt(i, line, `missing "t"`)
	}
	t := r.t
	if !r.tOK {
		return a.errAt(i, line, "%s", badSeconds(`"t"`, r.tf, false))
	}
	if !r.hasKind {
		return a.errAt(i, line, `missing "kind"`)
	}
	kind := parseKindBytes(r.kind)
	if !kind.IsTraceKind() {
		return a.errAt(i, line, "unknown kind %q", r.kind)
	}
	if !r.hasP {
		return a.errAt(i, line, `missing "p"`)
	}
	p, err := a.proc(r.p, i, line)
	if err != nil {
		return err
	}
	ev := Event{T: t, Kind: kind, P: p, To: None, Msg: None}
	switch kind {
	case Send:
		if !r.hasTo {
			return a.errAt(i, line, `send without "to"`)
		}
		if ev.To, err = a.proc(r.to, i, line); err != nil {
			return err
		}
		if !r.hasMsg {
			return a.errAt(i, line, `send without "msg"`)
		}
		ev.Msg = a.message(r.msg)
	case Recv:
		if !r.hasMsg {
			return a.errAt(i, line, `recv without "msg"`)
		}
		ev.Msg = a.message(r.msg)
	case Fail:
		if r.hasDown {
			if !r.downOK || r.down <= 0 {
				return a.errAt(i, line, "%s", badSeconds(`"down"`, r.downf, true))
			}
			ev.Down = r.down
		}
	}
	if len(r.label) > 0 {
		ev.Label = a.label(r.label)
	}
	a.tr.Events = append(grow(a.tr.Events), ev)
	if e := a.check(i, line); e != nil {
		return e
	}
	return nil
}

// check applies the ordering and causality rules to event i, already
// appended, with process and message indexes resolved. It is shared by
// the decoders, the Builder and Validate.
func (a *assembler) check(i, line int) *InputError {
	tr := a.tr
	ev := &tr.Events[i]
	if ev.T < a.lastT {
		return a.errAt(i, line, "t %s is before the previous event's t %s (events must be in non-decreasing t)", ev.T, a.lastT)
	}
	a.lastT = ev.T
	switch ev.Kind {
	case Send:
		if ev.To == ev.P {
			return a.errAt(i, line, "send of %q to itself (%s)", tr.Msgs[ev.Msg], a.names[ev.P])
		}
		m := &tr.Messages[ev.Msg]
		if m.Send != None {
			return a.errAt(i, line, "duplicate message id %q (already sent by event %d)", tr.Msgs[ev.Msg], m.Send)
		}
		if m.Recv != None {
			return a.errAt(int(m.Recv), a.pendingLine[ev.Msg], "recv of %q before its send", tr.Msgs[ev.Msg])
		}
		m.Send = int32(i)
	case Recv:
		m := &tr.Messages[ev.Msg]
		if m.Recv != None {
			return a.errAt(i, line, "recv of %q twice (first by event %d)", tr.Msgs[ev.Msg], m.Recv)
		}
		m.Recv = int32(i)
		if m.Send == None {
			// Either the send comes later or never: which one is known
			// only later, so the error waits (see finish).
			if a.jsonl {
				a.pendingLine[ev.Msg] = line
			}
			return nil
		}
		if to := tr.Events[m.Send].To; to != ev.P {
			return a.errAt(i, line, "recv of %q by %s, but it was sent to %s", tr.Msgs[ev.Msg], a.names[ev.P], a.names[to])
		}
	}
	return nil
}

// finish resolves provisional process indexes and reports receives of
// messages that are never sent.
func (a *assembler) finish() (*Trace, error) {
	tr := a.tr
	if !a.hasProcs {
		return nil, a.headerErr(`missing "processes"`)
	}
	if !a.known {
		final := make(map[string]int32, len(tr.Processes))
		for i, p := range tr.Processes {
			final[p] = int32(i)
		}
		remap := make([]int32, len(a.names))
		for i, n := range a.names {
			idx, ok := final[n]
			if !ok {
				return nil, a.errAt(int(a.firstUse[i]), 0, "unknown process %q", n)
			}
			remap[i] = idx
		}
		for i := range tr.Events {
			ev := &tr.Events[i]
			ev.P = remap[ev.P]
			if ev.To != None {
				ev.To = remap[ev.To]
			}
		}
		a.names = tr.Processes
		a.known = true
	}
	first := -1
	for i := range tr.Messages {
		m := &tr.Messages[i]
		if m.Send == None && (first < 0 || m.Recv < tr.Messages[first].Recv) {
			first = i
		}
	}
	if first >= 0 {
		m := tr.Messages[first]
		return nil, a.errAt(int(m.Recv), a.pendingLine[int32(first)], "recv of unknown message %q (no event sends it)", tr.Msgs[first])
	}
	if len(tr.Msgs) == 0 {
		// As without reserve: a trace without messages has nil tables.
		tr.Msgs, tr.Messages = nil, nil
	}
	return tr, nil
}

func parseKindBytes(b []byte) Kind {
	for k := Send; k < numKinds; k++ {
		if kindNames[k] == string(b) {
			return k
		}
	}
	return KindInvalid
}

// Validate checks a trace built in memory against every rule of SPEC §2,
// normalizes the fields its kinds do not use (To, Msg, Down become None or
// 0) and recomputes Messages from Events and Msgs. Decoders and the
// Builder validate as they go; Validate is for traces assembled by hand
// or by other tools. The error is an *InputError.
func Validate(tr *Trace) error {
	a := &assembler{tr: tr, pendingLine: map[int32]int{}}
	if msg := checkProcesses(tr.Processes); msg != "" {
		return a.headerErr("%s", msg)
	}
	a.names = tr.Processes
	a.hasProcs, a.known = true, true
	for _, f := range []struct {
		key string
		v   Time
	}{{"restart_delay", tr.Params.RestartDelay}, {"control_delay", tr.Params.ControlDelay}, {"default_delay", tr.Params.DefaultDelay}} {
		if f.v < 0 || f.v > MaxTime {
			return a.headerErr("%s", badTime("params."+f.key, f.v, true))
		}
	}
	msgIdx := make(map[string]int32, len(tr.Msgs))
	for i, m := range tr.Msgs {
		if _, dup := msgIdx[m]; dup {
			return a.headerErr("message id %q appears twice in Msgs", m)
		}
		msgIdx[m] = int32(i)
	}
	tr.Messages = make([]Message, len(tr.Msgs))
	for i := range tr.Messages {
		tr.Messages[i] = Message{Send: None, Recv: None}
	}
	nproc, nmsg := int32(len(tr.Processes)), int32(len(tr.Msgs))
	for i := range tr.Events {
		ev := &tr.Events[i]
		if !ev.Kind.IsTraceKind() {
			return a.errAt(i, 0, "unknown kind %q", ev.Kind.String())
		}
		if ev.P < 0 || ev.P >= nproc {
			return a.errAt(i, 0, "unknown process index %d", ev.P)
		}
		if ev.T < 0 || ev.T > MaxTime {
			return a.errAt(i, 0, "%s", badTime(`"t"`, ev.T, false))
		}
		if ev.Kind != Send {
			ev.To = None
		} else if ev.To < 0 || ev.To >= nproc {
			return a.errAt(i, 0, "send to unknown process index %d", ev.To)
		}
		if ev.Kind != Send && ev.Kind != Recv {
			ev.Msg = None
		} else if ev.Msg < 0 || ev.Msg >= nmsg {
			return a.errAt(i, 0, "%s of unknown message index %d", ev.Kind, ev.Msg)
		}
		if ev.Kind != Fail {
			ev.Down = 0
		} else if ev.Down < 0 || ev.Down > MaxTime {
			return a.errAt(i, 0, "%s", badTime(`"down"`, ev.Down, true))
		}
		if e := a.check(i, 0); e != nil {
			return e
		}
	}
	for i, m := range tr.Messages {
		if m.Send == None && m.Recv != None {
			return a.errAt(int(m.Recv), 0, "recv of unknown message %q (no event sends it)", tr.Msgs[i])
		}
	}
	return nil
}

// grow makes room for one more element, doubling the capacity: the
// runtime grows large slices by only 1.25×, which for a million events
// means several times more copying and fresh (page-faulting) memory.
// label interns a decoded label as Trace.AddLabel does, without
// allocating when it repeats the last one.
func (a *assembler) label(b []byte) int32 {
	if n := len(a.tr.Labels); n > 1 && a.tr.Labels[n-1] == string(b) {
		return int32(n - 1)
	}
	return a.tr.AddLabel(string(b))
}

func grow[T any](s []T) []T {
	if len(s) < cap(s) {
		return s
	}
	n := 2 * cap(s)
	if n < 256 {
		n = 256
	}
	ns := make([]T, len(s), n)
	copy(ns, s)
	return ns
}
