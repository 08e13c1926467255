package shiviz

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/goccy/go-json"

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
// event still happened) and per checkpoint, failure, restart and rollback,
// each with its process's vector clock. Clocks count every written event
// of a process and merge, at a receive, the clock of the send of the copy
// it takes. Control messages, logging, discards and holds are not
// written: ShiViz would draw control messages as application messages.
func Export(w io.Writer, run *trace.Run) (ExportStats, error) {
	quoted, err := quotedProcesses(run)
	if err != nil {
		return ExportStats{}, err
	}
	x := newExporter(run, quoted)
	bw := bufio.NewWriter(w)
	bw.WriteString(ExportRegex)
	bw.WriteByte('\n')
	for i := range run.Events {
		ev := &run.Events[i]
		if ev.P < 0 || int(ev.P) >= len(run.Processes) {
			return x.st, &trace.InputError{File: run.Name, Event: i, Msg: fmt.Sprintf("unknown process index %d", ev.P)}
		}
		if !x.text(i, ev) {
			continue
		}
		x.clock(ev)
		x.writeLine(ev.P)
		if _, err := bw.Write(x.line); err != nil {
			return x.st, err
		}
		x.st.Events++
	}
	return x.st, bw.Flush()
}

// quotedProcesses JSON-quotes the process names once for every clock
// written, and rejects names that would break the tab-separated lines.
func quotedProcesses(run *trace.Run) ([]string, error) {
	quoted := make([]string, len(run.Processes))
	for i, p := range run.Processes {
		if strings.ContainsAny(p, "\t\n\r") {
			return nil, fmt.Errorf("%s: process name %q contains a tab or line break, which a ShiViz log cannot carry", run.Name, p)
		}
		b, _ := json.Marshal(p)
		quoted[i] = string(b)
	}
	return quoted, nil
}

// copyKey names one copy of a message, since resends and duplicates
// carry different clocks.
type copyKey struct{ msg, copy int32 }

// exporter holds the vector clocks Export maintains across events and
// the buffers each line is built in.
type exporter struct {
	run    *trace.Run
	quoted []string
	undone []bool
	// vc is each process's vector clock.
	vc [][]int32
	// sent is the clock of each sent copy, as non-zero entries.
	sent map[copyKey][]Entry
	// lastCopy is the highest copy sent of each message, which a receive
	// without a copy number takes.
	lastCopy  map[int32]int32
	st        ExportStats
	line, txt []byte
}

// newExporter starts every process at the zero clock.
func newExporter(run *trace.Run, quoted []string) *exporter {
	np := len(run.Processes)
	x := &exporter{
		run:      run,
		quoted:   quoted,
		undone:   undoneEvents(run),
		vc:       make([][]int32, np),
		sent:     map[copyKey][]Entry{},
		lastCopy: map[int32]int32{},
	}
	for i := range x.vc {
		x.vc[i] = make([]int32, np)
	}
	return x
}

// msgName tolerates a message index the run does not name, so that a
// malformed run still exports.
func (x *exporter) msgName(m int32) string {
	if m >= 0 && int(m) < len(x.run.Msgs) {
		return x.run.Msgs[m]
	}
	return "?"
}

// procName tolerates a peer index the run does not name, so that a
// malformed run still exports.
func (x *exporter) procName(p int32) string {
	if p >= 0 && int(p) < len(x.run.Processes) {
		return x.run.Processes[p]
	}
	return "?"
}

// text writes event i's description into x.txt; false means the event is
// of a kind the log does not show.
func (x *exporter) text(i int, ev *trace.RunEvent) bool {
	txt := x.txt[:0]
	switch ev.Kind {
	case trace.Send:
		txt = fmt.Appendf(txt, "send %s to %s", x.msgName(ev.Msg), x.procName(ev.Peer))
		if ev.Resend {
			txt = fmt.Appendf(txt, " (resend of copy %d)", ev.Of)
		}
		if ev.Copy > 1 {
			txt = fmt.Appendf(txt, " copy %d", ev.Copy)
		}
	case trace.Recv:
		txt = fmt.Appendf(txt, "recv %s from %s", x.msgName(ev.Msg), x.procName(ev.Peer))
		if ev.Copy > 1 {
			txt = fmt.Appendf(txt, " copy %d", ev.Copy)
		}
		if ev.Via == trace.ViaLog {
			txt = append(txt, " via log"...)
		}
	case trace.Internal:
		txt = append(txt, "internal"...)
	case trace.Checkpoint:
		txt = fmt.Appendf(txt, "checkpoint %d", ev.Ckpt)
		if ev.CkptType != trace.CkptNone {
			txt = fmt.Appendf(txt, " (%s)", ev.CkptType)
		}
		if ev.Pos >= 0 {
			txt = fmt.Appendf(txt, " at pos %d", ev.Pos)
		}
	case trace.Fail:
		txt = append(txt, "fail"...)
	case trace.Restart, trace.Rollback:
		txt = append(txt, ev.Kind.String()...)
		if ev.Cause != trace.CauseNone {
			txt = fmt.Appendf(txt, " (%s)", ev.Cause)
		}
		txt = fmt.Appendf(txt, ": restore checkpoint %d, pos %d, undone %d", ev.Restore, ev.Pos, ev.Undone)
	default:
		x.txt = txt
		return false
	}
	if label := x.run.Label(ev); label != "" {
		txt = append(txt, ": "...)
		txt = append(txt, label...)
	}
	if x.undone[i] {
		txt = append(txt, " [undone]"...)
	}
	x.txt = txt
	return true
}

// clock advances the clock of the event's process: a receive first
// merges the clock of the copy it takes, and a send records its clock
// for the receive.
func (x *exporter) clock(ev *trace.RunEvent) {
	own := x.vc[ev.P]
	if ev.Kind == trace.Recv {
		x.merge(ev, own)
	}
	own[ev.P]++
	if ev.Kind == trace.Send {
		snap := make([]Entry, 0, 4)
		for h, v := range own {
			if v > 0 {
				snap = append(snap, Entry{int32(h), v})
			}
		}
		x.sent[copyKey{ev.Msg, ev.Copy}] = snap
		if ev.Copy > x.lastCopy[ev.Msg] {
			x.lastCopy[ev.Msg] = ev.Copy
		}
	}
}

// merge folds the sent copy's clock into own, counting the receive as
// hidden when the clocks cannot show it.
func (x *exporter) merge(ev *trace.RunEvent, own []int32) {
	c := ev.Copy
	if c == 0 {
		c = x.lastCopy[ev.Msg]
	}
	sc, ok := x.sent[copyKey{ev.Msg, c}]
	from := ev.Peer
	if !ok || from < 0 || int(from) >= len(x.run.Processes) {
		x.st.Hidden++
		return
	}
	var sv int32
	for _, en := range sc {
		if en.Host == from {
			sv = en.Value
		}
	}
	if own[from] >= sv {
		x.st.Hidden++
	}
	for _, en := range sc {
		if en.Value > own[en.Host] {
			own[en.Host] = en.Value
		}
	}
}

// writeLine builds process p's log line in x.line: name, clock and the
// text, whose tabs and line breaks would otherwise split the line.
func (x *exporter) writeLine(p int32) {
	line := append(x.line[:0], x.run.Processes[p]...)
	line = append(line, '\t', '{')
	first := true
	for h, v := range x.vc[p] {
		if v == 0 {
			continue
		}
		if !first {
			line = append(line, ',')
		}
		first = false
		line = append(line, x.quoted[h]...)
		line = append(line, ':')
		line = strconv.AppendInt(line, int64(v), 10)
	}
	line = append(line, '}', '\t')
	for _, c := range x.txt {
		if c == '\n' || c == '\r' || c == '\t' {
			c = ' '
		}
		line = append(line, c)
	}
	x.line = append(line, '\n')
}

// undoneEvents marks the app events that a later restart or rollback of
// their process undoes: those whose op is at or beyond the restored pos.
func undoneEvents(run *trace.Run) []bool {
	undone := make([]bool, len(run.Events))
	live := make([][]int32, len(run.Processes))
	for i := range run.Events {
		ev := &run.Events[i]
		if ev.P < 0 || int(ev.P) >= len(live) {
			continue
		}
		switch {
		case ev.Kind.IsOp() && !ev.Resend:
			live[ev.P] = append(live[ev.P], int32(i))
		case (ev.Kind == trace.Restart || ev.Kind == trace.Rollback) && ev.Pos >= 0:
			l := live[ev.P]
			for len(l) > 0 && run.Events[l[len(l)-1]].Op >= ev.Pos {
				undone[l[len(l)-1]] = true
				l = l[:len(l)-1]
			}
			live[ev.P] = l
		}
	}
	return undone
}
