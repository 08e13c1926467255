package shiviz

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-json"

	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/trace"
)

// ExportRegex is the parser expression of the logs Export writes; it is
// their first line, to paste into ShiViz, and Parse uses it when a log
// starts with it. Tabs separate the fields because process names and
// labels may contain spaces; Export rejects names with tabs or newlines.
const ExportRegex = `^(?<host>[^\t\n]*)\t(?<clock>\{.*\})\t(?<event>.*)$`

// ExportStats describe an exported log.
type ExportStats struct {
	// Events is the number of log events written.
	Events int
	// Hidden counts receives that vector clocks cannot show: the receiver
	// already knew the send (a message overtaken by a later one from the
	// same causal past), or the run lacks the send. ShiViz, and Parse,
	// see them as local events.
	Hidden int
}

// Export writes run as a ShiViz log: the regex line, then one line per
// app event (send, recv, internal — live or later undone, since an undone
// event still happened; what is undone, the checker's history model says,
// as for the diagram) and per checkpoint, failure, restart and rollback,
// each with its process's vector clock. Clocks count every written event
// of a process and merge, at a receive, the clock of the send of the copy
// it takes. Control messages, logging, discards and holds are not
// written: ShiViz would draw control messages as application messages.
func Export(w io.Writer, run *trace.Run) (ExportStats, error) {
	x := &exporter{run: run, undoneBy: undoneBy(run), vc: make([][]Entry, len(run.Processes)),
		sent: map[copyKey][]Entry{}, lastCopy: map[int32]int32{}}
	for _, p := range run.Processes {
		if strings.ContainsAny(p, "\t\n\r") {
			return x.st, fmt.Errorf("%s: process name %q contains a tab or line break, which a ShiViz log cannot carry", run.Name, p)
		}
		b, _ := json.Marshal(p)
		x.quoted = append(x.quoted, string(b))
	}
	bw := bufio.NewWriter(w)
	bw.WriteString(ExportRegex + "\n")
	for i := range run.Events {
		ev := &run.Events[i]
		if !x.text(i, ev) {
			continue
		}
		x.clock(ev)
		if _, err := bw.Write(x.line(ev.P)); err != nil {
			return x.st, err
		}
		x.st.Events++
	}
	return x.st, bw.Flush()
}

// copyKey names one copy of a message, since resends and duplicates
// carry different clocks.
type copyKey struct{ msg, copy int32 }

// exporter holds the vector clocks Export maintains across events and
// the buffers each line is built in.
type exporter struct {
	run *trace.Run
	// quoted are the process names, JSON-quoted once for every clock.
	quoted []string
	// undoneBy is, per event, the restart or rollback that undid it, or
	// a negative value (undoneBy).
	undoneBy []int32
	// vc is each process's vector clock, its non-zero entries in host
	// order: a dense clock per process made 20,000 processes of three
	// events 1.6 GB of clocks; these hold no more than the log's lines
	// write.
	vc [][]Entry
	// sent is the clock of each sent copy, as non-zero entries.
	sent map[copyKey][]Entry
	// lastCopy is the highest copy sent of each message, which a receive
	// without a copy number takes.
	lastCopy map[int32]int32
	st       ExportStats
	buf, txt []byte
}

// name tolerates an index the run does not name (a send without "to"
// decodes), so that such a run still exports.
func name(names []string, i int32) string {
	if i >= 0 && int(i) < len(names) {
		return names[i]
	}
	return "?"
}

// text writes event i's description into x.txt; false means the event is
// of a kind the log does not show.
func (x *exporter) text(i int, ev *trace.RunEvent) bool {
	txt := append(x.txt[:0], ev.Kind.String()...)
	switch ev.Kind {
	case trace.Send, trace.Recv:
		dir := " to "
		if ev.Kind == trace.Recv {
			dir = " from "
		}
		txt = fmt.Appendf(txt, " %s%s%s", name(x.run.Msgs, ev.Msg), dir, name(x.run.Processes, ev.Peer))
		if ev.Resend && ev.Kind == trace.Send {
			txt = fmt.Appendf(txt, " (resend of copy %d)", ev.Of)
		}
		if ev.Copy > 1 {
			txt = fmt.Appendf(txt, " copy %d", ev.Copy)
		}
		if ev.Via == trace.ViaLog && ev.Kind == trace.Recv {
			txt = append(txt, " via log"...)
		}
	case trace.Internal, trace.Fail:
	case trace.Checkpoint:
		txt = fmt.Appendf(txt, " %d", ev.Ckpt)
		if ev.CkptType != trace.CkptNone {
			txt = fmt.Appendf(txt, " (%s)", ev.CkptType)
		}
		if ev.Pos >= 0 {
			txt = fmt.Appendf(txt, " at pos %d", ev.Pos)
		}
	case trace.Restart, trace.Rollback:
		if ev.Cause != trace.CauseNone {
			txt = fmt.Appendf(txt, " (%s)", ev.Cause)
		}
		txt = fmt.Appendf(txt, ": restore checkpoint %d, pos %d, undone %d", ev.Restore, ev.Pos, ev.Undone)
	default:
		return false
	}
	if label := x.run.Label(ev); label != "" {
		txt = append(append(txt, ": "...), label...)
	}
	if x.undoneBy[i] >= 0 {
		txt = append(txt, " [undone]"...)
	}
	x.txt = txt
	return true
}

// clock advances the clock of the event's process: a receive first
// merges the clock of the copy it takes, and a send records its clock
// for the receive.
func (x *exporter) clock(ev *trace.RunEvent) {
	if ev.Kind == trace.Recv {
		x.merge(ev)
	}
	own := x.vc[ev.P]
	k, found := slices.BinarySearchFunc(own, ev.P, byHost)
	if !found {
		own = slices.Insert(own, k, Entry{Host: ev.P})
	}
	own[k].Value++
	x.vc[ev.P] = own
	if ev.Kind == trace.Send {
		x.sent[copyKey{ev.Msg, ev.Copy}] = slices.Clone(own)
		x.lastCopy[ev.Msg] = max(x.lastCopy[ev.Msg], ev.Copy)
	}
}

// byHost orders a clock's entries (slices.BinarySearchFunc).
func byHost(en Entry, host int32) int { return cmp.Compare(en.Host, host) }

// merge folds the sent copy's clock into the receiver's, counting the
// receive as hidden when the clocks cannot show it.
func (x *exporter) merge(ev *trace.RunEvent) {
	c := ev.Copy
	if c == 0 {
		c = x.lastCopy[ev.Msg]
	}
	sc, ok := x.sent[copyKey{ev.Msg, c}]
	if !ok || ev.Peer < 0 {
		x.st.Hidden++
		return
	}
	own := x.vc[ev.P]
	k, _ := slices.BinarySearchFunc(sc, ev.Peer, byHost)
	if j, found := slices.BinarySearchFunc(own, ev.Peer, byHost); k == len(sc) || sc[k].Host != ev.Peer || found && own[j].Value >= sc[k].Value {
		x.st.Hidden++
	}
	out := make([]Entry, 0, len(own)+len(sc))
	for len(own) > 0 || len(sc) > 0 {
		switch {
		case len(sc) == 0 || len(own) > 0 && own[0].Host < sc[0].Host:
			out, own = append(out, own[0]), own[1:]
		case len(own) == 0 || sc[0].Host < own[0].Host:
			out, sc = append(out, sc[0]), sc[1:]
		default:
			out, own, sc = append(out, Entry{own[0].Host, max(own[0].Value, sc[0].Value)}), own[1:], sc[1:]
		}
	}
	x.vc[ev.P] = out
}

// line builds process p's log line: name, clock and the text, whose tabs
// and line breaks would otherwise split the line.
func (x *exporter) line(p int32) []byte {
	b := append(x.buf[:0], x.run.Processes[p]...)
	b = append(b, '\t', '{')
	for _, en := range x.vc[p] {
		if b[len(b)-1] != '{' {
			b = append(b, ',')
		}
		b = strconv.AppendInt(append(append(b, x.quoted[en.Host]...), ':'), int64(en.Value), 10)
	}
	b = append(b, '}', '\t')
	for _, c := range x.txt {
		if c == '\n' || c == '\r' || c == '\t' {
			c = ' '
		}
		b = append(b, c)
	}
	x.buf = append(b, '\n')
	return x.buf
}

// undoneBy builds the checker's history model of run (package
// consistency/history, which the diagram fades undone events by too) and
// returns its UndoneBy: per event, the restart or rollback that undid
// it. Only an app op a restore of its process dropped has one: never a
// resend, nor an op that a broken op continuity dropped (ImplicitUndo).
func undoneBy(run *trace.Run) []int32 {
	b := history.NewBuilder(run, nil, history.AlgOf(run), len(run.Events))
	for i := range run.Events {
		b.Add(&run.Events[i])
	}
	return b.Model().UndoneBy
}
