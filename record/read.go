package record

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	json "github.com/goccy/go-json"
	"github.com/goccy/go-json/jsontext"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/codec"
)

// recording is one process's decoded recording.
type recording struct {
	head
	file   string
	p      int32 // the process's index
	events []*event
	op     int32 // the op due next: the last op's plus one, or a restore's pos
	// due says what made op due when a restore or a fail did, until
	// the next op: "the rollback at line 23 (pos 60) makes op 60 due".
	due    string
	failed int // the line of a fail not followed by a restart; 0: up
	up     int // the line of the last restart
	end    int // the line of the end event; 0: none
	last   int // the line of the last event (1: the header's)
	cut    int // the line a crash cut short (no newline), dropped; 0: none
}

// head is a recording's header line, as written and as read.
type head struct {
	Format    string   `json:"format"`
	Process   string   `json:"process"`
	Processes []string `json:"processes,omitempty"`
	Algorithm string   `json:"algorithm,omitempty"`
}

// event is one decoded line: the keys merging reads (the others only
// pass into the run, build.go), with what merging works out for it.
type event struct {
	N    int64      `json:"n"`
	NS   int64      `json:"ns"`
	Kind string     `json:"kind"`
	Msg  string     `json:"msg"`
	To   string     `json:"to"`
	From string     `json:"from"`
	Tx   int64      `json:"tx"`
	Op   int32      `json:"op"`
	Stat string     `json:"state"`
	Pos  int32      `json:"pos"`
	Fail *Failure   `json:"failure"`
	Ctl  string     `json:"control"`
	Re   bool       `json:"resend"`
	line []byte     // the line as recorded
	ln   int        // its line number in the file
	rec  *recording // the recording it is in
	kind trace.Kind // Kind parsed
	p    int32      // the process's index
	from *event     // the send this event's copy or control message comes from
	seq  int32      // position in the merged run; None until placed
	t    trace.Time // time in the merged run
	copy int32      // a send's copy number
}

// read decodes a recording. A last line without its newline that is
// not one whole JSON value is the tail a crash cut short, and is
// dropped (Merge says so, or refuses it).
func read(name string, r io.Reader) (*recording, error) {
	br := bufio.NewReader(r)
	rec := &recording{file: name}
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte("\ufeff")) // a BOM, skipped as in every input
		}
		eof, text := errors.Is(err, io.EOF), len(bytes.TrimSpace(b)) > 0
		switch {
		case errors.Is(err, codec.ErrTruncated):
			return nil, fmt.Errorf("%s: line %d: %v", name, line, err)
		case err != nil && !eof:
			return nil, fmt.Errorf("%s: line %d: reading: %v", name, line, err)
		case !text:
			err = nil
		case eof && !json.Valid(b):
			rec.cut, err = line, nil
		case line == 1:
			err = rec.header(b)
		default:
			err = rec.add(b, line)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: line %d: %w", name, line, err)
		}
		if text && rec.cut == 0 {
			rec.last = line
		}
		if eof && rec.Format == "" {
			return nil, fmt.Errorf("%s: empty recording", name)
		} else if eof {
			return rec, nil
		}
	}
}

func (rec *recording) header(b []byte) error {
	if err := json.Unmarshal(b, &rec.head); err != nil {
		return inWords(err, b)
	}
	if v, ok := strings.CutPrefix(rec.Format, "ckpt/recording@"); ok && v != "1" {
		return fmt.Errorf("a recording of format %s, which this ckpt does not read (it reads %s)", rec.Format, Format)
	}
	if rec.Format != Format || rec.Process == "" {
		return fmt.Errorf("not a %s header", Format)
	}
	return nil
}

func (rec *recording) add(b []byte, line int) error {
	e := &event{Op: absent, Pos: trace.None, seq: trace.None, line: b, ln: line, rec: rec}
	if err := json.Unmarshal(b, e); err != nil {
		return inWords(err, b)
	}
	e.kind = trace.Parse[trace.Kind](e.Kind)
	if e.kind == trace.KindInvalid {
		return fmt.Errorf("unknown event kind %q", e.Kind)
	}
	if want := int64(len(rec.events)) + 1; e.N > want {
		return fmt.Errorf("event n=%d where n=%d is due: events are missing", e.N, want)
	} else if e.N < want {
		return fmt.Errorf("event n=%d again, where n=%d is due: a line is repeated or out of order", e.N, want)
	}
	if err := rec.inLine(e); err != nil {
		return fmt.Errorf("event n=%d (%s): %w", e.N, e.Kind, err)
	}
	rec.events = append(rec.events, e)
	return nil
}

// inWords says what is wrong with line, which the decoder refused with
// err, where its error names Go types and fields.
func inWords(err error, line []byte) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field == "" {
		return fmt.Errorf("the line is a JSON %s, not an object", te.Value)
	}
	if errors.As(err, &te) && te.Type != nil {
		want := "a string"
		switch k := te.Type.Kind(); {
		case k == reflect.Int64 || k == reflect.Int32:
			want = fmt.Sprintf("a whole number that fits in %d bits", te.Type.Bits())
		case k == reflect.Bool:
			want = "true or false"
		case k != reflect.String:
			want = "an object"
		}
		return fmt.Errorf("%q holds a JSON %s where %s is wanted", te.Field, te.Value, want)
	}
	_, err = jsontext.NewDecoder(bytes.NewReader(line)).ReadValue()
	return syntax(err)
}

// syntax words err, jsontext's refusal of a line: the fault, and the
// key whose value holds it, without the library's name and offset.
func syntax(err error) error {
	var se *jsontext.SyntacticError
	if !errors.As(err, &se) {
		return errors.New("not one JSON object, as every line of a recording is")
	}
	msg := "not valid JSON: " + se.Err.Error()
	if key := strings.TrimPrefix(string(se.JSONPointer), "/"); key != "" {
		msg += fmt.Sprintf(" (in %q)", key)
	}
	return errors.New(msg)
}
