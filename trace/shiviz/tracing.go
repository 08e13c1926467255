package shiviz

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/goccy/go-json"
)

// tracingRecord is one line of a DistributedClocks tracing log (the
// tracing library's output, which TraceChecker reads): who recorded
// what, and its vector clock.
type tracingRecord struct {
	TracerIdentity string
	// TraceID is a number, kept as written (a label only).
	TraceID     json.RawMessage
	Tag         string
	Body        json.RawMessage
	VectorClock json.RawMessage
}

// matchTracing adds the records of text, one JSON object a line, whose
// first line is line firstLine of the file: host TracerIdentity, clock
// VectorClock, text the Tag followed by the Body, field trace the
// TraceID.
func (p *parser) matchTracing(ex *Execution, text string, firstLine int) error {
	var body bytes.Buffer
	for line := firstLine; text != ""; line++ {
		var l string
		l, text, _ = strings.Cut(text, "\n")
		if strings.TrimSpace(l) == "" {
			continue
		}
		var rec tracingRecord
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			return p.errf(line, "not a tracing record (a JSON object with TracerIdentity, Tag, Body and VectorClock): %s", recordProblem(err))
		}
		if rec.TracerIdentity == "" || len(rec.VectorClock) == 0 {
			return p.errf(line, "a tracing record needs a TracerIdentity and a VectorClock (the tracing library writes them since 2021)")
		}
		txt := rec.Tag
		body.Reset()
		if json.Compact(&body, rec.Body) == nil && body.Len() > 0 && body.String() != "{}" && body.String() != "null" {
			txt += " " + body.String()
		}
		var fields []Field
		if id := strings.Trim(string(rec.TraceID), `"`); id != "" && id != "null" {
			fields = []Field{{"trace", id}}
		}
		if err := p.addEvent(ex, rec.TracerIdentity, string(rec.VectorClock), txt, fields, line, line); err != nil {
			return err
		}
	}
	return nil
}

// recordProblem words a failure to decode a record without Go's types:
// the field of the wrong kind (every field decoded is a string), or a
// record cut short, as a tracer killed mid-write leaves its last line.
func recordProblem(err error) string {
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te) && te.Field != "":
		return fmt.Sprintf("its %s is a JSON %s, not a string", te.Field, te.Value)
	case errors.As(err, &te):
		return fmt.Sprintf("a JSON %s, not an object", te.Value)
	case strings.Contains(err.Error(), "unexpected end of JSON input"):
		return "the line ends inside the record: it is cut short"
	}
	return "malformed JSON: " + err.Error()
}
