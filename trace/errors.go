package trace

import (
	"fmt"
	"strings"
)

// InputError reports invalid input: a trace or run that cannot be read or
// breaks a rule of SPEC §2 or §6. It prints as
//
//	bad.json: event 17 (line 19): recv of "m4" before its send
//
// File is omitted when empty (a trace built in memory), Event is -1 for
// problems of the header or of the document as a whole, and Line is 0
// when unknown or not meaningful: lines are given for JSON Lines input,
// where a line is an event, and for syntax errors outside any event.
//
// Doc names the numbering Event is in, "trace" or "run", and then prints
// before it: "bad.json: trace event 17: …", "x.run.json: run event 3: …"
// (event 3 of a run is the one with seq 3). A trace's event index and a
// run's seq are different numberings of different files, so the command
// line always sets Doc; the decoders leave it empty (a caller knows what
// it asked to read), which prints the bare "event N".
type InputError struct {
	File  string
	Event int
	Line  int
	Msg   string
	Doc   string
}

// Error is the one line the CLI prints: file, event (with its line
// when known) and what is wrong.
func (e *InputError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File + ": ")
	}
	if e.Event >= 0 && e.Doc != "" {
		b.WriteString(e.Doc + " ")
	}
	switch {
	case e.Event >= 0 && e.Line > 0:
		fmt.Fprintf(&b, "event %d (line %d): ", e.Event, e.Line)
	case e.Event >= 0:
		fmt.Fprintf(&b, "event %d: ", e.Event)
	case e.Line > 0:
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	b.WriteString(e.Msg)
	return b.String()
}
