package codec

import (
	"github.com/ckpt-dev/ckpt/trace"
)

// assembler builds a Trace one event at a time, as the frame hands the
// events over: it reads their fields, resolves their names (procNames,
// and msgTable for message ids) and applies the rules of SPEC §2 through
// Trace.CheckEvent, giving the line of a JSON Lines event in its errors.
type assembler struct {
	tr    *trace.Trace
	jsonl bool
	procs procNames
	msgs  msgTable
	w     traceWire
	// buf holds a string's text while it is read, when it has escapes.
	buf []byte
	// pendingLine remembers the line of a receive whose send has not
	// been seen yet, to report it if the send comes later.
	pendingLine map[int32]int
}

func newAssembler(name string) *assembler {
	return &assembler{tr: &trace.Trace{Name: name}, pendingLine: make(map[int32]int)}
}

// proc resolves the process named by v, a string, in the event f reads.
func (a *assembler) proc(f *frame, v []byte) (int32, error) {
	idx, msg := a.procs.index(text(v, &a.buf), f.n)
	if msg != "" {
		return trace.None, f.eventErr("%s", msg)
	}
	return idx, nil
}

// message interns a message id.
func (a *assembler) message(id []byte) int32 {
	idx, isNew := a.msgs.intern(&a.tr.Msgs, id)
	if isNew {
		a.tr.Messages = append(trace.Grow(a.tr.Messages), trace.Message{Send: trace.None, Recv: trace.None})
	}
	return idx
}

// reserve allocates room for n events (an upper bound from the input
// size), and for n/4 messages: a message takes a send and a receive,
// and ckpt's traces average about 53 bytes an event against the
// bound's 36, so n/4 leaves a margin. Beyond, the tables double. The
// intern table is sized for n/5 ids, what ckpt's traces have (0.19 n
// at 10^6 and 10^7 events): for n/8 it rehashed once at 10^6 (a
// sixth of the decode's interning), and its slots are touched
// throughout, so n/4 would double its memory at 10^7.
func (a *assembler) reserve(n int) {
	a.tr.Events = make([]trace.Event, 0, n)
	a.tr.Msgs = make([]string, 0, n/4)
	a.tr.Messages = make([]trace.Message, 0, n/4)
	a.msgs.reserve(n / 5)
}

// add appends the event in a.w, which f reads, and checks it.
func (a *assembler) add(f *frame) error {
	i, line := len(a.tr.Events), f.line
	ev, err := a.resolve(f)
	if err != nil {
		return err
	}
	a.tr.Events = append(trace.Grow(a.tr.Events), ev)
	if err := a.tr.CheckEvent(i, a.procs.names); err != nil {
		err.Line = line
		if err.Event != i {
			err.Line = a.pendingLine[ev.Msg] // a receipt before its send
		}
		if !a.jsonl {
			err.Line = 0
		}
		return err
	}
	if ev.Kind == trace.Recv && a.jsonl && a.tr.Messages[ev.Msg].Send == trace.None {
		a.pendingLine[ev.Msg] = line
	}
	return nil
}

// resolve reads the fields of the event f reads, whose JSON types are
// checked, as its kind needs them.
func (a *assembler) resolve(f *frame) (trace.Event, error) {
	w := &a.w
	var ev trace.Event
	if len(w.T) == 0 {
		return ev, f.eventErr(`missing "t"`)
	}
	t, ok, tf := seconds(w.T)
	if !ok {
		return ev, f.eventErr("%s", badSeconds(`"t"`, tf, false))
	}
	if len(w.Kind) == 0 {
		return ev, f.eventErr(`missing "kind"`)
	}
	name := text(w.Kind, &a.buf)
	kind := trace.Parse[trace.Kind](string(name))
	switch {
	case !kind.IsTraceKind():
		return ev, f.eventErr("unknown kind %q", name)
	case len(w.P) == 0:
		return ev, f.eventErr(`missing "p"`)
	}
	p, err := a.proc(f, w.P)
	if err != nil {
		return ev, err
	}
	ev = trace.Event{T: t, Kind: kind, P: p, To: trace.None, Msg: trace.None}
	switch kind {
	case trace.Send:
		if len(w.To) == 0 {
			return ev, f.eventErr(`send without "to"`)
		}
		if ev.To, err = a.proc(f, w.To); err != nil {
			return ev, err
		}
		fallthrough
	case trace.Recv:
		if len(w.Msg) == 0 {
			return ev, f.eventErr("%s without \"msg\"", kind)
		}
		ev.Msg = a.message(text(w.Msg, &a.buf))
	case trace.Fail:
		if len(w.Down) > 0 {
			down, ok, df := seconds(w.Down)
			if !ok || down <= 0 {
				return ev, f.eventErr("%s", badSeconds(`"down"`, df, true))
			}
			ev.Down = down
		}
	}
	if len(w.Label) > 0 {
		if b := text(w.Label, &a.buf); len(b) > 0 {
			ev.Label = a.label(b)
		}
	}
	return ev, nil
}

// finish resolves provisional process indexes and reports receives of
// messages that are never sent.
func (a *assembler) finish() (*trace.Trace, error) {
	tr := a.tr
	if !a.procs.known {
		re, err := a.procs.remap(tr.Name, tr.Processes)
		if err != nil {
			return nil, err
		}
		for i := range tr.Events {
			ev := &tr.Events[i]
			ev.P, ev.To = re(ev.P), re(ev.To)
		}
	}
	if err := tr.CheckSent(); err != nil {
		if a.jsonl {
			err.Line = a.pendingLine[tr.Events[err.Event].Msg]
		}
		return nil, err
	}
	if len(tr.Msgs) == 0 {
		// As without reserve: a trace without messages has nil tables.
		tr.Msgs, tr.Messages = nil, nil
	}
	return tr, nil
}

// label interns a decoded label as Trace.AddLabel does, without
// allocating when it repeats the last one.
func (a *assembler) label(b []byte) int32 {
	if n := len(a.tr.Labels); n > 1 && a.tr.Labels[n-1] == string(b) {
		return int32(n - 1)
	}
	return a.tr.AddLabel(string(b))
}
