package trace

import (
	"strconv"
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
type InputError struct {
	File  string
	Event int
	Line  int
	Msg   string
}

func (e *InputError) Error() string {
	b := make([]byte, 0, len(e.File)+len(e.Msg)+32)
	if e.File != "" {
		b = append(b, e.File...)
		b = append(b, ": "...)
	}
	switch {
	case e.Event >= 0 && e.Line > 0:
		b = append(b, "event "...)
		b = strconv.AppendInt(b, int64(e.Event), 10)
		b = append(b, " (line "...)
		b = strconv.AppendInt(b, int64(e.Line), 10)
		b = append(b, "): "...)
	case e.Event >= 0:
		b = append(b, "event "...)
		b = strconv.AppendInt(b, int64(e.Event), 10)
		b = append(b, ": "...)
	case e.Line > 0:
		b = append(b, "line "...)
		b = strconv.AppendInt(b, int64(e.Line), 10)
		b = append(b, ": "...)
	}
	b = append(b, e.Msg...)
	return string(b)
}
