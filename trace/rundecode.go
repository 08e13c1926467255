package trace

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// runDecoder reads one run (SPEC §6) through a scanner. Like the trace
// decoder it streams, interns names as it meets them and renumbers
// processes at the end if the document lists its events first.
type runDecoder struct {
	s         *scanner
	run       *Run
	jsonl     bool
	key       []byte
	val       []byte
	peer      []byte
	format    []byte
	hasFormat bool
	hasEvents bool
	hasProcs  bool
	// names holds process names by (provisional) index; known says the
	// header's list is in, so unlisted names are errors at once.
	names    []string
	procIdx  map[string]int32
	known    bool
	firstUse []int32
	msgIdx   map[string]int32
	lastT    Time
	// cur and line locate the event being read, for messages.
	cur  int
	line int
}

// ReadRun decodes a run (ckpt/run@1) from r: a JSON document or JSON
// Lines, optionally gzip-compressed, told apart by content. It checks the
// structure — format, known processes, kinds and enum values, seq equal
// to the event's index, non-decreasing t, field types — but not the
// protocol, which is the consistency checker's job. Errors are
// *InputError.
func ReadRun(name string, r io.Reader) (*Run, error) {
	in, err := openInput(r)
	if err != nil {
		return nil, &InputError{File: name, Event: -1, Msg: err.Error()}
	}
	d := &runDecoder{
		s:       newScanner(in),
		run:     &Run{Name: name},
		procIdx: make(map[string]int32),
		msgIdx:  make(map[string]int32),
	}
	return d.decode()
}

// ReadRunFile reads the run in the named file.
func ReadRunFile(path string) (*Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadRun(path, f)
}

func (d *runDecoder) headerErr(format string, args ...any) error {
	return &InputError{File: d.run.Name, Event: -1, Msg: fmt.Sprintf(format, args...)}
}

func (d *runDecoder) evErr(format string, args ...any) error {
	line := 0
	if d.jsonl {
		line = d.line
	}
	return &InputError{File: d.run.Name, Event: d.cur, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// wrap turns a scanner error into an InputError at event i (-1: header).
func (d *runDecoder) wrap(err error, i int) error {
	var se *syntaxError
	if !errors.As(err, &se) {
		return err
	}
	line := se.line
	if (i >= 0 && !d.jsonl) || se.read {
		line = 0
	}
	return &InputError{File: d.run.Name, Event: i, Line: line, Msg: se.describe()}
}

func (d *runDecoder) decode() (*Run, error) {
	s := d.s
	c, ok := s.next()
	if !ok {
		if err := s.eofError(); s.rerr != io.EOF {
			return nil, d.wrap(err, -1)
		}
		return nil, d.headerErr("empty input: expected a %s JSON object", RunFormat)
	}
	if c != '{' {
		if err := s.checkValueStart(); err != nil {
			return nil, d.wrap(err, -1)
		}
		return nil, d.headerErr("expected a JSON object, found %s", kindOf(c))
	}
	if err := d.header(); err != nil {
		return nil, err
	}
	if err := d.checkFormat(); err != nil {
		return nil, err
	}
	if d.hasEvents {
		end, err := s.atEOF()
		if err != nil {
			return nil, d.wrap(err, -1)
		}
		if !end {
			return nil, &InputError{File: d.run.Name, Event: -1, Line: s.line, Msg: "unexpected data after the JSON document"}
		}
		return d.finish()
	}
	d.jsonl = true
	if !d.hasProcs {
		return nil, d.headerErr(`missing "processes"`)
	}
	for {
		end, err := s.atEOF()
		if err != nil {
			return nil, d.wrap(err, len(d.run.Events))
		}
		if end {
			return d.finish()
		}
		if err := d.event(); err != nil {
			return nil, err
		}
	}
}

func (d *runDecoder) checkFormat() error {
	if !d.hasFormat {
		return d.headerErr(`missing "format" (want %q)`, RunFormat)
	}
	if string(d.format) != RunFormat {
		return d.headerErr(`"format" is %q, want %q`, d.format, RunFormat)
	}
	return nil
}

// str reads a string value for the header field key.
func (d *runDecoder) headerString(key string) (string, error) {
	c, err := d.s.peekType()
	if err != nil {
		return "", d.wrap(err, -1)
	}
	if c != '"' {
		return "", d.headerErr("%q must be a string, not %s", key, kindOf(c))
	}
	if d.val, err = d.s.str(d.val[:0]); err != nil {
		return "", d.wrap(err, -1)
	}
	return string(d.val), nil
}

func (d *runDecoder) header() error {
	s := d.s
	s.pos++
	for first := true; ; first = false {
		more, c, err := s.member(first, &d.key)
		if err != nil {
			return d.wrap(err, -1)
		}
		if !more {
			return nil
		}
		switch string(d.key) {
		case "format":
			if c != '"' {
				return d.headerErr(`"format" must be a string, not %s`, kindOf(c))
			}
			if d.format, err = s.str(d.format[:0]); err != nil {
				return d.wrap(err, -1)
			}
			d.hasFormat = true
			if string(d.format) != RunFormat {
				return d.checkFormat()
			}
		case "algorithm":
			if d.run.Algorithm, err = d.headerString("algorithm"); err != nil {
				return err
			}
		case "source":
			if d.run.Source, err = d.headerString("source"); err != nil {
				return err
			}
		case "processes":
			if err := d.processes(c); err != nil {
				return err
			}
		case "options":
			if err := d.options(c); err != nil {
				return err
			}
		case "events":
			if c != '[' {
				return d.headerErr(`"events" must be an array, not %s`, kindOf(c))
			}
			if d.hasEvents {
				return d.headerErr(`"events" given twice`)
			}
			d.hasEvents = true
			s.pos++
			for first := true; ; first = false {
				more, err := s.more(']', first)
				if err != nil {
					return d.wrap(err, len(d.run.Events))
				}
				if !more {
					break
				}
				if err := d.event(); err != nil {
					return err
				}
			}
		default:
			if err := s.skip(0); err != nil {
				return d.wrap(err, -1)
			}
		}
	}
}

func (d *runDecoder) processes(c byte) error {
	s := d.s
	if d.hasProcs {
		return d.headerErr(`"processes" given twice`)
	}
	if c != '[' {
		return d.headerErr(`"processes" must be an array of strings, not %s`, kindOf(c))
	}
	s.pos++
	var names []string
	for first := true; ; first = false {
		more, err := s.more(']', first)
		if err != nil {
			return d.wrap(err, -1)
		}
		if !more {
			break
		}
		c, err := s.peekType()
		if err != nil {
			return d.wrap(err, -1)
		}
		if c != '"' {
			return d.headerErr(`"processes" must be an array of strings, found %s`, kindOf(c))
		}
		if d.val, err = s.str(d.val[:0]); err != nil {
			return d.wrap(err, -1)
		}
		names = append(names, string(d.val))
	}
	if msg := checkProcesses(names); msg != "" {
		return d.headerErr("%s", msg)
	}
	d.hasProcs = true
	d.run.Processes = names
	if len(d.names) == 0 {
		d.names = append(d.names, names...)
		for i, p := range names {
			d.procIdx[p] = int32(i)
		}
		d.known = true
	}
	return nil
}

func (d *runDecoder) options(c byte) error {
	s := d.s
	if c != '{' {
		return d.headerErr(`"options" must be an object, not %s`, kindOf(c))
	}
	s.pos++
	for first := true; ; first = false {
		more, c, err := s.member(first, &d.key)
		if err != nil {
			return d.wrap(err, -1)
		}
		if !more {
			return nil
		}
		var dst *Time
		switch k := string(d.key); k {
		case "restart_delay":
			dst = &d.run.Options.Params.RestartDelay
		case "control_delay":
			dst = &d.run.Options.Params.ControlDelay
		case "default_delay":
			dst = &d.run.Options.Params.DefaultDelay
		case "variant":
			if d.run.Options.Variant, err = d.headerString("options.variant"); err != nil {
				return err
			}
			continue
		default:
			if err := s.skip(0); err != nil {
				return d.wrap(err, -1)
			}
			continue
		}
		if c != '-' && (c < '0' || c > '9') {
			return d.headerErr("options.%s must be a finite number > 0, not %s", d.key, kindOf(c))
		}
		t, ok, v, err := s.seconds()
		if err != nil {
			return d.wrap(err, -1)
		}
		if !ok || t <= 0 {
			return d.headerErr("options.%s must be a finite number > 0, got %s", d.key, fmtFloat(v))
		}
		*dst = t
	}
}

// proc resolves a process name met in the current event.
func (d *runDecoder) proc(name []byte, field string) (int32, error) {
	if idx, ok := d.procIdx[string(name)]; ok {
		return idx, nil
	}
	if d.known {
		return None, d.evErr("%s: unknown process %q", field, name)
	}
	if len(name) == 0 {
		return None, d.evErr("%s: process name must not be empty", field)
	}
	idx := int32(len(d.names))
	s := string(name)
	d.names = append(d.names, s)
	d.procIdx[s] = idx
	d.firstUse = append(d.firstUse, int32(d.cur))
	return idx, nil
}

func (d *runDecoder) message(id []byte) int32 {
	if idx, ok := d.msgIdx[string(id)]; ok {
		return idx
	}
	idx := int32(len(d.run.Msgs))
	s := string(id)
	d.run.Msgs = append(grow(d.run.Msgs), s)
	d.msgIdx[s] = idx
	return idx
}

// want checks the JSON type of the next value of field key.
func (d *runDecoder) want(key string, c byte, what string) error {
	ok := false
	switch what {
	case "a string":
		ok = c == '"'
	case "an integer", "a number":
		ok = c == '-' || (c >= '0' && c <= '9')
	case "an object":
		ok = c == '{'
	case "an array":
		ok = c == '['
	case "a boolean":
		ok = c == 't' || c == 'f'
	}
	if !ok {
		return d.evErr("%q must be %s, not %s", key, what, kindOf(c))
	}
	return nil
}

// intField reads a non-negative int32 (min 1 when one is set).
func (d *runDecoder) intField(key string, one bool) (int32, error) {
	c, err := d.s.peekType()
	if err != nil {
		return 0, d.wrap(err, d.cur)
	}
	if err := d.want(key, c, "an integer"); err != nil {
		return 0, err
	}
	v, ok, err := d.s.int()
	if err != nil {
		return 0, d.wrap(err, d.cur)
	}
	min := int64(0)
	if one {
		min = 1
	}
	if !ok || v < min {
		return 0, d.evErr("%q must be an integer >= %d", key, min)
	}
	return int32(v), nil
}

// stringField reads a string into d.val.
func (d *runDecoder) stringField(key string) ([]byte, error) {
	c, err := d.s.peekType()
	if err != nil {
		return nil, d.wrap(err, d.cur)
	}
	if err := d.want(key, c, "a string"); err != nil {
		return nil, err
	}
	if d.val, err = d.s.str(d.val[:0]); err != nil {
		return nil, d.wrap(err, d.cur)
	}
	return d.val, nil
}

// enumField reads a string and parses it with parse; 0 means unknown.
func (d *runDecoder) enumField(key string, parse func(string) uint8) (uint8, error) {
	b, err := d.stringField(key)
	if err != nil {
		return 0, err
	}
	v := parse(string(b))
	if v == 0 {
		return 0, d.evErr("unknown %s %q", key, b)
	}
	return v, nil
}

// event reads one run event.
func (d *runDecoder) event() error {
	s := d.s
	d.cur = len(d.run.Events)
	c, err := s.peekType()
	if err != nil {
		return d.wrap(err, d.cur)
	}
	d.line = s.line
	if c != '{' {
		return d.evErr("an event must be a JSON object, not %s", kindOf(c))
	}
	s.pos++
	ev := NewRunEvent(KindInvalid, 0, None)
	hasT, hasP := false, false
	var peerKey string
	peer := d.peer[:0]
	for first := true; ; first = false {
		more, c, err := s.member(first, &d.key)
		if err != nil {
			return d.wrap(err, d.cur)
		}
		if !more {
			break
		}
		var v uint8
		switch string(d.key) {
		case "seq":
			ev.Seq, err = d.intField("seq", false)
			if err == nil && int(ev.Seq) != d.cur {
				err = d.evErr("seq is %d, want %d (its index in the run)", ev.Seq, d.cur)
			}
		case "t":
			if err = d.want("t", c, "a number"); err == nil {
				var f float64
				var t Time
				var ok bool
				if t, ok, f, err = s.seconds(); err != nil {
					err = d.wrap(err, d.cur)
				} else if !ok {
					err = d.evErr(`"t" must be a finite number >= 0, got %s`, fmtFloat(f))
				} else {
					ev.T, hasT = t, true
				}
			}
		case "p":
			var b []byte
			if b, err = d.stringField("p"); err == nil {
				ev.P, err = d.proc(b, "p")
				hasP = true
			}
		case "kind":
			var b []byte
			if b, err = d.stringField("kind"); err == nil {
				ev.Kind = parseKindBytes(b)
				if ev.Kind == KindInvalid || ev.Kind == Flush {
					err = d.evErr("unknown kind %q", b)
				}
			}
		case "to":
			var b []byte
			if b, err = d.stringField("to"); err == nil {
				peer, peerKey = append(peer[:0], b...), "to"
			}
		case "from":
			var b []byte
			if b, err = d.stringField("from"); err == nil {
				peer, peerKey = append(peer[:0], b...), "from"
			}
		case "msg":
			var b []byte
			if b, err = d.stringField("msg"); err == nil {
				ev.Msg = d.message(b)
			}
		case "op":
			ev.Op, err = d.intField("op", false)
		case "copy":
			ev.Copy, err = d.intField("copy", true)
		case "of":
			ev.Of, err = d.intField("of", true)
		case "ckpt":
			ev.Ckpt, err = d.intField("ckpt", false)
		case "pos":
			ev.Pos, err = d.intField("pos", false)
		case "sn":
			ev.Sn, err = d.intField("sn", false)
		case "next":
			ev.Next, err = d.intField("next", false)
		case "restore":
			ev.Restore, err = d.intField("restore", false)
		case "undone":
			ev.Undone, err = d.intField("undone", false)
		case "inc":
			ev.Inc, err = d.intField("inc", false)
		case "failure":
			ev.Failure, err = d.intField("failure", false)
		case "resend":
			if err = d.want("resend", c, "a boolean"); err == nil {
				var lit byte
				if lit, err = s.literal(); err != nil {
					err = d.wrap(err, d.cur)
				}
				ev.Resend = lit == 't'
			}
		case "via":
			v, err = d.enumField("via", func(s string) uint8 { return uint8(ParseVia(s)) })
			ev.Via = Via(v)
		case "type":
			v, err = d.enumField("type", func(s string) uint8 { return uint8(ParseCkptType(s)) })
			ev.CkptType = CkptType(v)
		case "reason":
			v, err = d.enumField("reason", func(s string) uint8 { return uint8(ParseReason(s)) })
			ev.Reason = Reason(v)
		case "cause":
			v, err = d.enumField("cause", func(s string) uint8 { return uint8(ParseCause(s)) })
			ev.Cause = Cause(v)
		case "control":
			v, err = d.enumField("control", func(s string) uint8 { return uint8(ParseControl(s)) })
			ev.Control = Control(v)
		case "state":
			v, err = d.enumField("state", func(s string) uint8 { return uint8(ParseEndState(s)) })
			ev.State = EndState(v)
		case "until":
			var b []byte
			if b, err = d.stringField("until"); err == nil && len(b) > 0 {
				ev.Until = d.run.AddString(string(b))
			}
		case "label":
			var b []byte
			if b, err = d.stringField("label"); err == nil && len(b) > 0 {
				ev.Label = d.run.AddString(string(b))
			}
		case "vt":
			if err = d.want("vt", c, "an array"); err == nil {
				var vt VT
				if vt, err = d.vt("vt"); err == nil {
					ev.VT = d.run.AddVT(vt)
				}
			}
		case "pb":
			if err = d.want("pb", c, "an object"); err == nil {
				var pb *Piggyback
				if pb, err = d.piggyback(); err == nil {
					ev.PB = d.run.AddPB(pb)
				}
			}
		case "body":
			if err = d.want("body", c, "an object"); err == nil {
				var b *ControlBody
				if b, err = d.body(); err == nil {
					ev.Body = d.run.AddBody(b)
				}
			}
		default:
			if err = s.skip(0); err != nil {
				err = d.wrap(err, d.cur)
			}
		}
		if err != nil {
			return err
		}
	}
	if !hasT {
		return d.evErr(`missing "t"`)
	}
	if ev.Kind == KindInvalid {
		return d.evErr(`missing "kind"`)
	}
	if !hasP {
		return d.evErr(`missing "p"`)
	}
	if ev.T < d.lastT {
		return d.evErr("t %s is before the previous event's t %s (events must be in non-decreasing t)", ev.T, d.lastT)
	}
	d.lastT = ev.T
	ev.Seq = int32(d.cur)
	d.peer = peer
	if peerKey != "" {
		want := "to"
		if ev.Kind == Recv || ev.Kind == ControlRecv {
			want = "from"
		}
		switch {
		case ev.Kind != Send && ev.Kind != Recv && ev.Kind != ControlSend && ev.Kind != ControlRecv:
			// Not a field of this kind: ignored like an unknown field.
		case peerKey != want:
			return d.evErr("%s has %q, want %q", ev.Kind, peerKey, want)
		default:
			if ev.Peer, err = d.proc(peer, peerKey); err != nil {
				return err
			}
		}
	}
	d.run.Events = append(grow(d.run.Events), ev)
	return nil
}

// vt reads [[inc, count], ...].
func (d *runDecoder) vt(key string) (VT, error) {
	s := d.s
	s.pos++
	vt := make(VT, 0, len(d.names))
	for first := true; ; first = false {
		more, err := s.more(']', first)
		if err != nil {
			return nil, d.wrap(err, d.cur)
		}
		if !more {
			return vt, nil
		}
		c, err := s.peekType()
		if err != nil {
			return nil, d.wrap(err, d.cur)
		}
		if c != '[' {
			return nil, d.evErr("%q must be an array of [inc, count] pairs, found %s", key, kindOf(c))
		}
		s.pos++
		var pair [2]int32
		n := 0
		for first := true; ; first = false {
			more, err := s.more(']', first)
			if err != nil {
				return nil, d.wrap(err, d.cur)
			}
			if !more {
				break
			}
			if n == 2 {
				return nil, d.evErr("%q entries must be [inc, count] pairs", key)
			}
			if pair[n], err = d.intField(key, false); err != nil {
				return nil, err
			}
			n++
		}
		if n != 2 {
			return nil, d.evErr("%q entries must be [inc, count] pairs", key)
		}
		vt = append(vt, VTEntry{Inc: pair[0], Count: pair[1]})
	}
}

// piggyback reads a pb object.
func (d *runDecoder) piggyback() (*Piggyback, error) {
	s := d.s
	s.pos++
	pb := NewPiggyback()
	for first := true; ; first = false {
		more, c, err := s.member(first, &d.key)
		if err != nil {
			return nil, d.wrap(err, d.cur)
		}
		if !more {
			return &pb, nil
		}
		switch string(d.key) {
		case "sn":
			pb.Sn, err = d.intField("pb.sn", false)
		case "inc":
			pb.Inc, err = d.intField("pb.inc", false)
		case "rec_line":
			pb.RecLine, err = d.intField("pb.rec_line", false)
		case "vt":
			if err = d.want("pb.vt", c, "an array"); err == nil {
				pb.VT, err = d.vt("pb.vt")
			}
		case "f":
			if err = d.want("pb.f", c, "an object"); err == nil {
				pb.F, err = d.fvec()
			}
		default:
			if err = s.skip(0); err != nil {
				err = d.wrap(err, d.cur)
			}
		}
		if err != nil {
			return nil, err
		}
	}
}

// fvec reads {"P0": 2, ...} into entries sorted by process.
func (d *runDecoder) fvec() ([]FEntry, error) {
	s := d.s
	s.pos++
	f := []FEntry{}
	for first := true; ; first = false {
		more, err := s.more('}', first)
		if err != nil {
			return nil, d.wrap(err, d.cur)
		}
		if !more {
			break
		}
		if d.key, err = s.key(d.key); err != nil {
			return nil, d.wrap(err, d.cur)
		}
		p, err := d.proc(d.key, "pb.f")
		if err != nil {
			return nil, err
		}
		n, err := d.intField("pb.f", false)
		if err != nil {
			return nil, err
		}
		f = append(f, FEntry{P: p, Count: n})
	}
	return f, nil
}

// body reads a control message body.
func (d *runDecoder) body() (*ControlBody, error) {
	s := d.s
	s.pos++
	b := NewControlBody()
	for first := true; ; first = false {
		more, c, err := s.member(first, &d.key)
		if err != nil {
			return nil, d.wrap(err, d.cur)
		}
		if !more {
			return &b, nil
		}
		switch string(d.key) {
		case "origin":
			var name []byte
			if name, err = d.stringField("body.origin"); err == nil {
				b.Origin, err = d.proc(name, "body.origin")
			}
		case "count":
			b.Count, err = d.intField("body.count", false)
		case "r":
			b.R, err = d.intField("body.r", false)
		case "inc":
			b.Inc, err = d.intField("body.inc", false)
		case "k":
			b.K, err = d.intField("body.k", false)
		case "received":
			if err = d.want("body.received", c, "an array"); err == nil {
				b.Received, err = d.received()
			}
		default:
			if err = s.skip(0); err != nil {
				err = d.wrap(err, d.cur)
			}
		}
		if err != nil {
			return nil, err
		}
	}
}

// received reads [["m1", inc], ...].
func (d *runDecoder) received() ([]Identity, error) {
	s := d.s
	s.pos++
	ids := []Identity{}
	const what = `"body.received" must be an array of ["msg", inc] pairs`
	for first := true; ; first = false {
		more, err := s.more(']', first)
		if err != nil {
			return nil, d.wrap(err, d.cur)
		}
		if !more {
			return ids, nil
		}
		if c, err := s.peekType(); err != nil {
			return nil, d.wrap(err, d.cur)
		} else if c != '[' {
			return nil, d.evErr(what)
		}
		s.pos++
		if more, err := s.more(']', true); err != nil {
			return nil, d.wrap(err, d.cur)
		} else if !more {
			return nil, d.evErr(what)
		}
		msg, err := d.stringField("body.received")
		if err != nil {
			return nil, err
		}
		id := Identity{Msg: d.message(msg)}
		if more, err := s.more(']', false); err != nil {
			return nil, d.wrap(err, d.cur)
		} else if !more {
			return nil, d.evErr(what)
		}
		if id.Inc, err = d.intField("body.received", false); err != nil {
			return nil, err
		}
		if more, err := s.more(']', false); err != nil {
			return nil, d.wrap(err, d.cur)
		} else if more {
			return nil, d.evErr(what)
		}
		ids = append(ids, id)
	}
}

// finish renumbers provisional processes, sorts f vectors by process and
// checks vector lengths.
func (d *runDecoder) finish() (*Run, error) {
	run := d.run
	if !d.hasProcs {
		return nil, d.headerErr(`missing "processes"`)
	}
	var remap []int32
	if !d.known {
		final := make(map[string]int32, len(run.Processes))
		for i, p := range run.Processes {
			final[p] = int32(i)
		}
		remap = make([]int32, len(d.names))
		for i, n := range d.names {
			idx, ok := final[n]
			if !ok {
				return nil, &InputError{File: run.Name, Event: int(d.firstUse[i]), Msg: fmt.Sprintf("unknown process %q", n)}
			}
			remap[i] = idx
		}
	}
	re := func(p int32) int32 {
		if remap == nil || p < 0 {
			return p
		}
		return remap[p]
	}
	n := len(run.Processes)
	for i := range run.Events {
		ev := &run.Events[i]
		ev.P, ev.Peer = re(ev.P), re(ev.Peer)
		vt := run.VTOf(ev)
		bad := vt != nil && len(vt) != n
		if pb := run.PB(ev); pb != nil {
			for j := range pb.F {
				pb.F[j].P = re(pb.F[j].P)
			}
			slices.SortStableFunc(pb.F, func(a, b FEntry) int { return int(a.P - b.P) })
			for j := 1; j < len(pb.F); j++ {
				if pb.F[j].P == pb.F[j-1].P {
					return nil, &InputError{File: run.Name, Event: i, Msg: fmt.Sprintf("pb.f names %s twice", run.Processes[pb.F[j].P])}
				}
			}
			bad = bad || (pb.VT != nil && len(pb.VT) != n)
		}
		if b := run.Body(ev); b != nil {
			b.Origin = re(b.Origin)
		}
		if bad {
			return nil, &InputError{File: run.Name, Event: i, Msg: fmt.Sprintf("a vector time must have one entry per process (%d)", n)}
		}
	}
	return run, nil
}
