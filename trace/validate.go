package trace

import (
	"fmt"
	"slices"
	"strconv"
)

// The rules of SPEC §2. A decoder applies them as it reads, one event at
// a time, so that the first problem is reported where it is (and with
// the names and lines the file gives, see package codec); Validate
// applies them to a trace built in memory. Both go through CheckEvent
// and CheckSent, so a rule is written once.

// CheckProcesses applies SPEC §2's rules to a process list.
func CheckProcesses(procs []string) *InputError {
	if len(procs) == 0 {
		return &InputError{Event: -1, Msg: `"processes" must list at least one process`}
	}
	seen := make(map[string]struct{}, len(procs))
	for _, p := range procs {
		if p == "" {
			return &InputError{Event: -1, Msg: "process names must not be empty"}
		}
		if _, dup := seen[p]; dup {
			return &InputError{Event: -1, Msg: fmt.Sprintf("duplicate process name %q", p)}
		}
		seen[p] = struct{}{}
	}
	return nil
}

// CheckEvent applies the rules that relate event i, the last of
// t.Events, to the events before it — t non-decreasing, a message sent
// once and not to its sender, received at most once, by the process it
// was sent to — and records its send or receipt in t.Messages, which
// must have an entry for its message. names are the process names for
// messages (a decoder's provisional ones, while the header's list is not
// known). A receipt whose send has not come yet is no error here: if
// the send comes, the error names the receipt; if it never does,
// CheckSent reports it.
func (t *Trace) CheckEvent(i int, names []string) *InputError {
	ev := &t.Events[i]
	if i > 0 && ev.T < t.Events[i-1].T {
		return t.errAt(i, "t %s is before the previous event's t %s (events must be in non-decreasing t)", ev.T, t.Events[i-1].T)
	}
	switch ev.Kind {
	case Send:
		m := &t.Messages[ev.Msg]
		switch {
		case ev.To == ev.P:
			return t.errAt(i, "send of %q to itself (%s)", t.Msgs[ev.Msg], names[ev.P])
		case m.Send != None:
			return t.errAt(i, "duplicate message id %q (already sent by event %d)", t.Msgs[ev.Msg], m.Send)
		case m.Recv != None:
			return t.errAt(int(m.Recv), "recv of %q before its send", t.Msgs[ev.Msg])
		}
		m.Send = int32(i)
	case Recv:
		m := &t.Messages[ev.Msg]
		if m.Recv != None {
			return t.errAt(i, "recv of %q twice (first by event %d)", t.Msgs[ev.Msg], m.Recv)
		}
		m.Recv = int32(i)
		if m.Send != None && t.Events[m.Send].To != ev.P {
			return t.errAt(i, "recv of %q by %s, but it was sent to %s", t.Msgs[ev.Msg], names[ev.P], names[t.Events[m.Send].To])
		}
	}
	return nil
}

// CheckSent reports the earliest receipt of a message that no event
// sends, once every event has been through CheckEvent.
func (t *Trace) CheckSent() *InputError {
	first := -1
	for i, m := range t.Messages {
		if m.Send == None && m.Recv != None && (first < 0 || m.Recv < t.Messages[first].Recv) {
			first = i
		}
	}
	if first < 0 {
		return nil
	}
	return t.errAt(int(t.Messages[first].Recv), "recv of unknown message %q (no event sends it)", t.Msgs[first])
}

func (t *Trace) errAt(event int, format string, args ...any) *InputError {
	return &InputError{File: t.Name, Event: event, Msg: fmt.Sprintf(format, args...)}
}

// Validate checks a trace built in memory against every rule of SPEC §2,
// normalizes the fields its kinds do not use (To, Msg, Down become None or
// 0) and recomputes Messages from Events and Msgs. Decoders validate as
// they read; Validate is for traces assembled by hand or by other tools.
// The error is an *InputError.
func Validate(tr *Trace) error {
	if err := tr.checkHeader(); err != nil {
		return err
	}
	tr.Messages = slices.Repeat([]Message{{Send: None, Recv: None}}, len(tr.Msgs))
	for i := range tr.Events {
		if err := tr.normalize(i); err != nil {
			return err
		}
		if err := tr.CheckEvent(i, tr.Processes); err != nil {
			return err
		}
	}
	if err := tr.CheckSent(); err != nil {
		return err
	}
	return nil
}

// checkHeader checks the processes, the params and the message ids.
func (tr *Trace) checkHeader() *InputError {
	if err := CheckProcesses(tr.Processes); err != nil {
		err.File = tr.Name
		return err
	}
	for _, f := range []struct {
		key string
		v   Time
	}{{"restart_delay", tr.Params.RestartDelay}, {"control_delay", tr.Params.ControlDelay}, {"default_delay", tr.Params.DefaultDelay}} {
		if f.v < 0 || f.v > MaxTime {
			return tr.errAt(-1, "%s", badTime("params."+f.key, f.v, true))
		}
	}
	seen := make(map[string]struct{}, len(tr.Msgs))
	for _, m := range tr.Msgs {
		if _, dup := seen[m]; dup {
			return tr.errAt(-1, "message id %q appears twice in Msgs", m)
		}
		seen[m] = struct{}{}
	}
	return nil
}

// normalize checks the indexes and times of event i and clears the
// fields its kind does not use.
func (tr *Trace) normalize(i int) *InputError {
	ev := &tr.Events[i]
	nproc, nmsg := int32(len(tr.Processes)), int32(len(tr.Msgs))
	switch {
	case !ev.Kind.IsTraceKind():
		return tr.errAt(i, "unknown kind %q", ev.Kind.String())
	case ev.P < 0 || ev.P >= nproc:
		return tr.errAt(i, "unknown process index %d", ev.P)
	case ev.T < 0 || ev.T > MaxTime:
		return tr.errAt(i, "%s", badTime(`"t"`, ev.T, false))
	}
	if ev.Kind != Send {
		ev.To = None
	} else if ev.To < 0 || ev.To >= nproc {
		return tr.errAt(i, "send to unknown process index %d", ev.To)
	}
	if ev.Kind != Send && ev.Kind != Recv {
		ev.Msg = None
	} else if ev.Msg < 0 || ev.Msg >= nmsg {
		return tr.errAt(i, "%s of unknown message index %d", ev.Kind, ev.Msg)
	}
	if ev.Kind != Fail {
		ev.Down = 0
	} else if ev.Down < 0 || ev.Down > MaxTime {
		return tr.errAt(i, "%s", badTime(`"down"`, ev.Down, true))
	}
	return nil
}

// badTime words a time or duration of a trace built in memory that is
// out of range, as a decoder words the number it read.
func badTime(field string, t Time, duration bool) string {
	if t > MaxTime {
		return OutOfRange(field, strconv.FormatFloat(t.Seconds(), 'g', -1, 64), true, duration)
	}
	return OutOfRange(field, t.String(), false, duration)
}
