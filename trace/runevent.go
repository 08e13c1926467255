package trace

import (
	json "github.com/goccy/go-json"
)

// event reads one run event: first every field as read, checking its
// type and range, then what the event as a whole needs.
func (d *runDecoder) event(f *frame) error {
	d.cur = f.n
	w := &d.w
	w.reset()
	if err := f.next(w); err != nil {
		return err
	}
	ev := NewRunEvent(KindInvalid, 0, None)
	for _, read := range [...]func(*frame, *RunEvent) error{d.head, d.numbers, d.enums, d.parts} {
		if err := read(f, &ev); err != nil {
			return err
		}
	}
	switch {
	case len(w.T) == 0:
		if err := f.object(); err != nil {
			return err
		}
		return f.eventErr(`missing "t"`)
	case len(w.Kind) == 0:
		return f.eventErr(`missing "kind"`)
	case len(w.P) == 0:
		return f.eventErr(`missing "p"`)
	case ev.T < d.lastT:
		return f.eventErr("t %s is before the previous event's t %s (events must be in non-decreasing t)", ev.T, d.lastT)
	}
	d.lastT = ev.T
	ev.Seq = int32(d.cur)
	if err := d.peerOf(f, &ev); err != nil {
		return err
	}
	d.run.Events = append(grow(d.run.Events), ev)
	return nil
}

// head reads seq, t, p, kind, msg, to and from.
func (d *runDecoder) head(f *frame, ev *RunEvent) error {
	w := &d.w
	if len(w.Seq) > 0 {
		seq, err := intField(f, "seq", w.Seq, 0)
		if err != nil {
			return err
		}
		if int(seq) != d.cur {
			return f.eventErr("seq is %d, want %d (its index in the run)", seq, d.cur)
		}
	}
	var ok bool
	var fv float64
	if hasT, err := timeField(f, "t", w.T, &ev.T, &ok, &fv); err != nil {
		return err
	} else if hasT && !ok {
		return f.eventErr(`"t" must be a finite number >= 0, got %s`, fmtFloat(fv))
	}
	var b []byte
	var err error
	if err := stringField(f, "p", w.P, &d.buf, &b, nil); err != nil {
		return err
	}
	if len(w.P) > 0 {
		if ev.P, err = d.proc(f, b, "p"); err != nil {
			return err
		}
	}
	if err := stringField(f, "kind", w.Kind, &d.buf, &b, nil); err != nil {
		return err
	}
	if len(w.Kind) > 0 {
		if ev.Kind = parseKindBytes(b); ev.Kind == KindInvalid || ev.Kind == Flush {
			return f.eventErr("unknown kind %q", b)
		}
	}
	if err := stringField(f, "msg", w.Msg, &d.buf, &b, nil); err != nil {
		return err
	}
	if len(w.Msg) > 0 {
		ev.Msg = d.message(b)
	}
	if err := stringField(f, "to", w.To, &d.toBuf, &d.to, nil); err != nil {
		return err
	}
	return stringField(f, "from", w.From, &d.fromBuf, &d.from, nil)
}

// numbers reads the integer fields and resend.
func (d *runDecoder) numbers(f *frame, ev *RunEvent) error {
	w := &d.w
	for _, n := range [...]struct {
		key string
		v   json.RawMessage
		dst *int32
		min int64
	}{
		{"op", w.Op, &ev.Op, 0}, {"copy", w.Copy, &ev.Copy, 1}, {"of", w.Of, &ev.Of, 1},
		{"ckpt", w.Ckpt, &ev.Ckpt, 0}, {"pos", w.Pos, &ev.Pos, 0}, {"sn", w.Sn, &ev.Sn, 0},
		{"next", w.Next, &ev.Next, 0}, {"restore", w.Restore, &ev.Restore, 0}, {"undone", w.Undone, &ev.Undone, 0},
		{"inc", w.Inc, &ev.Inc, 0}, {"failure", w.Failure, &ev.Failure, 0},
	} {
		if len(n.v) == 0 {
			continue
		}
		v, err := intField(f, n.key, n.v, n.min)
		if err != nil {
			return err
		}
		*n.dst = v
	}
	if len(w.Resend) > 0 {
		if c := w.Resend[0]; c != 't' && c != 'f' {
			return f.eventErr(`"resend" must be a boolean, not %s`, kindOf(c))
		}
		ev.Resend = w.Resend[0] == 't'
	}
	return nil
}

// intField reads an integer >= min that fits in int32.
func intField(f *frame, key string, v json.RawMessage, min int64) (int32, error) {
	if !isNumber(v) {
		return 0, f.eventErr("%q must be an integer, not %s", key, kindOf(v[0]))
	}
	n, ok := int32Of(v)
	if !ok || int64(n) < min {
		return 0, f.eventErr("%q must be an integer >= %d", key, min)
	}
	return n, nil
}

// enums reads the fields whose strings name a value, and until and label.
func (d *runDecoder) enums(f *frame, ev *RunEvent) error {
	w := &d.w
	for _, e := range [...]struct {
		key   string
		v     json.RawMessage
		parse func(string) uint8
		dst   *uint8
	}{
		{"via", w.Via, func(s string) uint8 { return uint8(ParseVia(s)) }, (*uint8)(&ev.Via)},
		{"type", w.Type, func(s string) uint8 { return uint8(ParseCkptType(s)) }, (*uint8)(&ev.CkptType)},
		{"reason", w.Reason, func(s string) uint8 { return uint8(ParseReason(s)) }, (*uint8)(&ev.Reason)},
		{"cause", w.Cause, func(s string) uint8 { return uint8(ParseCause(s)) }, (*uint8)(&ev.Cause)},
		{"control", w.Control, func(s string) uint8 { return uint8(ParseControl(s)) }, (*uint8)(&ev.Control)},
		{"state", w.State, func(s string) uint8 { return uint8(ParseEndState(s)) }, (*uint8)(&ev.State)},
	} {
		var b []byte
		if len(e.v) == 0 {
			continue
		}
		if err := stringField(f, e.key, e.v, &d.buf, &b, nil); err != nil {
			return err
		}
		if *e.dst = e.parse(string(b)); *e.dst == 0 {
			return f.eventErr("unknown %s %q", e.key, b)
		}
	}
	for _, s := range [...]struct {
		key string
		v   json.RawMessage
		dst *int32
	}{{"until", w.Until, &ev.Until}, {"label", w.Label, &ev.Label}} {
		var b []byte
		if err := stringField(f, s.key, s.v, &d.buf, &b, nil); err != nil {
			return err
		}
		if len(b) > 0 {
			*s.dst = d.run.AddString(string(b))
		}
	}
	return nil
}

// peerOf resolves "to" (send, control_send) or "from" (recv,
// control_recv); on other kinds both are ignored like unknown fields.
func (d *runDecoder) peerOf(f *frame, ev *RunEvent) error {
	w := &d.w
	want, other, name := "to", "from", d.to
	has, hasOther := len(w.To) > 0, len(w.From) > 0
	switch ev.Kind {
	case Send, ControlSend:
	case Recv, ControlRecv:
		want, other, name = "from", "to", d.from
		has, hasOther = hasOther, has
	default:
		return nil
	}
	if hasOther {
		return f.eventErr("%s has %q, want %q", ev.Kind, other, want)
	}
	if !has {
		return nil
	}
	var err error
	ev.Peer, err = d.proc(f, name, want)
	return err
}
