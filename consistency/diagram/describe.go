package diagram

import (
	"strconv"

	"github.com/ckpt-dev/ckpt/trace"
)

// describe appends the hover text of event i: a head line, then every
// field the event carries under its run-format name (SPEC §6), then what
// the diagram worked out about it. Fields are listed generically so that
// no kind's detail is ever forgotten.
func (m *model) describe(b []byte, i int32) []byte {
	run := m.run
	e := &run.Events[i]
	b = append(b, '#')
	b = strconv.AppendInt(b, int64(i), 10)
	b = append(b, " t="...)
	b = e.T.AppendJSON(b)
	b = append(b, "s "...)
	b = append(b, run.Processes[e.P]...)
	b = append(b, ' ')
	b = append(b, e.Kind.String()...)
	if e.Msg >= 0 && int(e.Msg) < len(run.Msgs) {
		b = append(b, ' ')
		b = append(b, run.Msgs[e.Msg]...)
	}
	b = append(b, '\n')
	field := func(k string) {
		b = append(b, k...)
		b = append(b, '=')
	}
	num := func(k string, v int32) {
		if v >= 0 {
			field(k)
			b = strconv.AppendInt(b, int64(v), 10)
			b = append(b, ' ')
		}
	}
	str := func(k, v string) {
		if v != "" {
			field(k)
			b = append(b, v...)
			b = append(b, ' ')
		}
	}
	if e.Peer >= 0 && int(e.Peer) < len(run.Processes) {
		k := "to"
		if e.Kind == trace.Recv || e.Kind == trace.ControlRecv {
			k = "from"
		}
		str(k, run.Processes[e.Peer])
	}
	num("op", e.Op)
	if e.Copy > 0 {
		num("copy", e.Copy)
	}
	if e.Resend {
		str("resend", "true")
		if e.Of > 0 {
			num("of", e.Of)
		}
	}
	if e.Via != trace.ViaNone {
		str("via", e.Via.String())
	}
	num("ckpt", e.Ckpt)
	if e.CkptType != trace.CkptNone {
		str("type", e.CkptType.String())
	}
	num("restore", e.Restore)
	num("pos", e.Pos)
	num("undone", e.Undone)
	num("sn", e.Sn)
	num("next", e.Next)
	num("inc", e.Inc)
	if e.Reason != trace.ReasonNone {
		str("reason", e.Reason.String())
	}
	if e.Cause != trace.CauseNone {
		str("cause", e.Cause.String())
	}
	if e.Control != trace.ControlNone {
		str("control", e.Control.String())
	}
	if e.State != trace.StateNone {
		str("state", e.State.String())
	}
	str("until", run.Until(e))
	if e.Failure >= 0 {
		field("failure")
		b = append(b, '#')
		b = strconv.AppendInt(b, int64(e.Failure), 10)
		b = append(b, ' ')
	}
	if vt := run.VTOf(e); len(vt) > 0 {
		field("vt")
		b = appendVT(b, vt)
		b = append(b, ' ')
	}
	if pb := run.PB(e); pb != nil {
		b = append(trimSpace(b), "\npiggyback: "...)
		b = m.appendPB(b, pb)
	}
	if body := run.Body(e); body != nil {
		b = append(trimSpace(b), "\nbody: "...)
		b = m.appendBody(b, body)
	}
	if label := run.Label(e); label != "" {
		b = append(trimSpace(b), "\nlabel: "...)
		b = append(b, label...)
	}
	if l := m.logged[i]; l >= 0 {
		b = append(trimSpace(b), "\nlogged to the stable message log at #"...)
		b = strconv.AppendInt(b, int64(l), 10)
		b = append(b, " (t="...)
		b = run.Events[l].T.AppendJSON(b)
		b = append(b, "s)"...)
	}
	if m.undone[i] {
		b = append(trimSpace(b), "\nundone by a later restart or rollback"...)
	}
	if m.discarded[i] {
		b = append(trimSpace(b), "\nthrown away by a later restore"...)
	}
	if n, ok := m.notes[i]; ok {
		b = append(trimSpace(b), '\n')
		b = append(b, n...)
	}
	return trimSpace(b)
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\n') {
		b = b[:len(b)-1]
	}
	return b
}

// appendVT writes a vector time as [(inc,count) …].
func appendVT(b []byte, vt trace.VT) []byte {
	b = append(b, '[')
	for i, v := range vt {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, '(')
		b = strconv.AppendInt(b, int64(v.Inc), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(v.Count), 10)
		b = append(b, ')')
	}
	return append(b, ']')
}

func (m *model) procName(p int32) string {
	if p >= 0 && int(p) < len(m.run.Processes) {
		return m.run.Processes[p]
	}
	return "?"
}

func (m *model) appendPB(b []byte, pb *trace.Piggyback) []byte {
	start := len(b)
	sep := func() {
		if len(b) > start {
			b = append(b, ' ')
		}
	}
	if pb.Sn >= 0 {
		sep()
		b = append(b, "sn="...)
		b = strconv.AppendInt(b, int64(pb.Sn), 10)
		if pb.Inc < 0 {
			b = append(b, " f={"...)
			for i, f := range pb.F {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, m.procName(f.P)...)
				b = append(b, ':')
				b = strconv.AppendInt(b, int64(f.Count), 10)
			}
			b = append(b, '}')
		}
	}
	if pb.Inc >= 0 {
		sep()
		b = append(b, "inc="...)
		b = strconv.AppendInt(b, int64(pb.Inc), 10)
	}
	if pb.RecLine >= 0 {
		sep()
		b = append(b, "rec_line="...)
		b = strconv.AppendInt(b, int64(pb.RecLine), 10)
	}
	if len(pb.VT) > 0 {
		sep()
		b = append(b, "vt="...)
		b = appendVT(b, pb.VT)
	}
	return b
}

func (m *model) appendBody(b []byte, c *trace.ControlBody) []byte {
	if c.Origin >= 0 {
		b = append(b, "origin="...)
		b = append(b, m.procName(c.Origin)...)
	}
	for _, f := range []struct {
		k string
		v int32
	}{{"count", c.Count}, {"r", c.R}, {"inc", c.Inc}, {"k", c.K}} {
		if f.v >= 0 {
			b = append(b, ' ')
			b = append(b, f.k...)
			b = append(b, '=')
			b = strconv.AppendInt(b, int64(f.v), 10)
		}
	}
	if ids := c.ReceivedList(); ids != nil {
		b = append(b, " received=["...)
		for i, id := range ids {
			if i > 0 {
				b = append(b, ' ')
			}
			if id.Msg >= 0 && int(id.Msg) < len(m.run.Msgs) {
				b = append(b, m.run.Msgs[id.Msg]...)
			}
			b = append(b, '@')
			b = strconv.AppendInt(b, int64(id.Inc), 10)
		}
		b = append(b, ']')
	}
	return b
}
