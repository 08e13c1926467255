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
	var st ExportStats
	np := len(run.Processes)
	quoted := make([]string, np)
	for i, p := range run.Processes {
		if strings.ContainsAny(p, "\t\n\r") {
			return st, fmt.Errorf("%s: process name %q contains a tab or line break, which a ShiViz log cannot carry", run.Name, p)
		}
		b, _ := json.Marshal(p)
		quoted[i] = string(b)
	}
	undone := undoneEvents(run)

	vc := make([][]int32, np)
	for i := range vc {
		vc[i] = make([]int32, np)
	}
	type copyKey struct{ msg, copy int32 }
	sent := map[copyKey][]Entry{}
	lastCopy := map[int32]int32{}

	bw := bufio.NewWriter(w)
	bw.WriteString(ExportRegex)
	bw.WriteByte('\n')
	var line, txt []byte
	msgName := func(m int32) string {
		if m >= 0 && int(m) < len(run.Msgs) {
			return run.Msgs[m]
		}
		return "?"
	}
	procName := func(p int32) string {
		if p >= 0 && int(p) < np {
			return run.Processes[p]
		}
		return "?"
	}
	for i := range run.Events {
		ev := &run.Events[i]
		if ev.P < 0 || int(ev.P) >= np {
			return st, &trace.InputError{File: run.Name, Event: i, Msg: fmt.Sprintf("unknown process index %d", ev.P)}
		}
		txt = txt[:0]
		switch ev.Kind {
		case trace.Send:
			txt = fmt.Appendf(txt, "send %s to %s", msgName(ev.Msg), procName(ev.Peer))
			if ev.Resend {
				txt = fmt.Appendf(txt, " (resend of copy %d)", ev.Of)
			}
			if ev.Copy > 1 {
				txt = fmt.Appendf(txt, " copy %d", ev.Copy)
			}
		case trace.Recv:
			txt = fmt.Appendf(txt, "recv %s from %s", msgName(ev.Msg), procName(ev.Peer))
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
			continue
		}
		if label := run.Label(ev); label != "" {
			txt = append(txt, ": "...)
			txt = append(txt, label...)
		}
		if undone[i] {
			txt = append(txt, " [undone]"...)
		}
		p := ev.P
		own := vc[p]
		if ev.Kind == trace.Recv {
			c := ev.Copy
			if c == 0 {
				c = lastCopy[ev.Msg]
			}
			sc, ok := sent[copyKey{ev.Msg, c}]
			from := ev.Peer
			if ok && from >= 0 && int(from) < np {
				var sv int32
				for _, en := range sc {
					if en.Host == from {
						sv = en.Value
					}
				}
				if own[from] >= sv {
					st.Hidden++
				}
				for _, en := range sc {
					if en.Value > own[en.Host] {
						own[en.Host] = en.Value
					}
				}
			} else {
				st.Hidden++
			}
		}
		own[p]++
		if ev.Kind == trace.Send {
			snap := make([]Entry, 0, 4)
			for h, v := range own {
				if v > 0 {
					snap = append(snap, Entry{int32(h), v})
				}
			}
			sent[copyKey{ev.Msg, ev.Copy}] = snap
			if ev.Copy > lastCopy[ev.Msg] {
				lastCopy[ev.Msg] = ev.Copy
			}
		}
		line = append(line[:0], run.Processes[p]...)
		line = append(line, '\t', '{')
		first := true
		for h, v := range own {
			if v == 0 {
				continue
			}
			if !first {
				line = append(line, ',')
			}
			first = false
			line = append(line, quoted[h]...)
			line = append(line, ':')
			line = strconv.AppendInt(line, int64(v), 10)
		}
		line = append(line, '}', '\t')
		for _, c := range txt {
			if c == '\n' || c == '\r' || c == '\t' {
				c = ' '
			}
			line = append(line, c)
		}
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return st, err
		}
		st.Events++
	}
	return st, bw.Flush()
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
