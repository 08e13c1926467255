package diagram

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/codec"
)

// describe appends the hover text of event i: the event as the run
// file writes it (codec.AppendRunEvent: every field it carries under its
// run-format name, SPEC §6, so no kind's detail is ever forgotten), then
// what the diagram worked out about it.
func (m *model) describe(b []byte, i int32) []byte {
	b = codec.AppendRunEvent(b, m.run, int(i))
	return trimSpace(m.describeFindings(b, i))
}

// describeFindings appends what the diagram worked out about event i:
// where it was logged, whether it was undone or thrown away, its notes.
func (m *model) describeFindings(b []byte, i int32) []byte {
	if l := m.logged[i]; l >= 0 {
		b = strconv.AppendInt(append(trimSpace(b), "\nlogged to the stable message log at #"...), int64(l), 10)
		b = append(m.run.Events[l].T.AppendJSON(append(b, " (t="...)), "s)"...)
	}
	if m.undone(i) {
		b = append(trimSpace(b), "\nundone by a later restart or rollback"...)
	}
	if m.discarded[i] {
		b = append(trimSpace(b), "\nthrown away by a later restore"...)
	}
	if n, ok := m.notes[i]; ok {
		b = append(trimSpace(b), '\n')
		b = append(b, n...)
	}
	return b
}

func trimSpace(b []byte) []byte { return bytes.TrimRight(b, " \n") }

// pairText is the details of two events joined by sep: a held span, a
// control message.
func (m *model) pairText(b []byte, from int32, sep string, to int32) string {
	b = append(m.describe(b, from), sep...)
	return string(m.describe(b, to))
}

func (m *model) initialText(p int32) string {
	s := m.run.Processes[p] + " initial checkpoint 0 (t=0, pos 0"
	if m.isMS() {
		s += ", sn 0"
	}
	return s + ")"
}

func (m *model) downText(d interval) string {
	return fmt.Sprintf("%s down from t=%ss to t=%ss", m.run.Processes[d.p], m.run.Events[d.from].T, m.run.Events[d.to].T)
}

// lineText lists where a failure's recovery line passes.
func (m *model) lineText(l rline) string {
	f := &m.run.Events[l.fail]
	var b strings.Builder
	fmt.Fprintf(&b, "recovery line of failure seq %d (%s at t=%ss):", l.fail, m.run.Processes[f.P], f.T)
	for _, pt := range l.points {
		b.WriteString("\n")
		b.WriteString(m.run.Processes[pt.p])
		switch {
		case pt.ev == trace.None:
			b.WriteString(": initial checkpoint 0")
		case pt.kept:
			b.WriteString(": keeps its state (no rollback)")
		default:
			e := &m.run.Events[pt.ev]
			fmt.Fprintf(&b, ": checkpoint %d (%s)", e.Ckpt, e.CkptType)
			if e.Sn >= 0 {
				fmt.Fprintf(&b, " sn=%d", e.Sn)
			}
			if vt := m.run.VTOf(e); len(vt) > 0 {
				b.WriteString(" vt=")
				b.Write(codec.AppendVT(nil, vt))
			}
		}
	}
	return b.String()
}

// arrowText is an arrow's hover text: the message, its fate, and both
// ends' details.
func (m *model) arrowText(a arrow) string {
	b := []byte(m.msgName(a.msg))
	if a.from != trace.None {
		b = fmt.Appendf(b, " copy %d", m.run.Events[a.from].Copy)
	}
	b = fmt.Appendf(b, ": %s\n", m.fate(a))
	if a.from == trace.None {
		return string(m.describe(b, a.to))
	}
	return m.pairText(b, a.from, "\n→ ", a.to)
}

// fate says in words what became of a copy.
func (m *model) fate(a arrow) string {
	switch {
	case m.run.Events[a.to].Kind == trace.End && a.from == trace.None:
		return "lost: the receive waits forever and no copy was ever sent"
	case m.run.Events[a.to].Kind == trace.End:
		return "lost: the receive waits forever; this is the message's last send"
	case a.style == styleOrphan && m.run.Events[a.to].Kind == trace.Recv:
		return "orphan: received, then its send was undone"
	}
	return fates[a.style]
}

// fates says in words what each message style means (the page's
// script has the same table).
var fates = map[string]string{
	styleNormal: "delivered", styleReplayed: "delivered again from the message log", styleResent: "a resend, delivered",
	styleDiscarded: "discarded (stale or duplicate)", styleLost: "lost: never received (left in the mailbox)",
	styleOrphan: "orphan: discarded as an orphan",
}

func (m *model) msgName(msg int32) string {
	if msg >= 0 && int(msg) < len(m.run.Msgs) {
		return m.run.Msgs[msg]
	}
	return "?"
}

// jumpHead explains a rollback: who went back where and why (how much
// it undid and kept is in the event's own line, "undone" and "pos").
func (m *model) jumpHead(b []byte, j jump) []byte {
	e := &m.run.Events[j.ev]
	verb := "rolls back to"
	if e.Kind == trace.Restart {
		verb = "restarts from"
	}
	b = fmt.Appendf(b, "%s %s checkpoint %d", m.run.Processes[e.P], verb, e.Restore)
	if j.ckpt != trace.None {
		c := &m.run.Events[j.ckpt]
		if c.Sn >= 0 {
			b = fmt.Appendf(b, " (sn=%d)", c.Sn)
		}
		if vt := m.run.VTOf(c); len(vt) > 0 {
			b = codec.AppendVT(append(b, " vt="...), vt)
		}
	}
	why, ok := causes[e.Cause]
	switch {
	case e.Kind == trace.Restart:
		why = "it failed"
	case !ok:
		why = "not recorded"
	}
	b = append(append(b, "\nwhy: "...), why...)
	if f := e.Failure; f >= 0 && int(f) < m.n {
		b = fmt.Appendf(b, " (failure seq %d of %s)", f, m.run.Processes[m.run.Events[f].P])
	}
	return b
}

// causes says in words why a process rolled back.
var causes = map[trace.Cause]string{
	trace.CauseRequest: "a Rollback request",
	trace.CauseMessage: "a message from a later recovery",
	trace.CauseToken:   "a token announced lost events its state depends on",
}
