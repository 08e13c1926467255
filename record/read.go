package record

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	json "github.com/goccy/go-json"

	"github.com/ckpt-dev/ckpt/trace"
)

// recording is one process's decoded recording.
type recording struct {
	head
	file   string
	p      int32 // the process's index
	events []*event
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
	Pos  int32      `json:"pos"`
	Fail *Failure   `json:"failure"`
	line []byte     // the line as recorded
	kind trace.Kind // Kind parsed
	p    int32      // the process's index
	from *event     // the send this event's copy or control message comes from
	seq  int32      // position in the merged run; None until placed
	t    trace.Time // time in the merged run
	copy int32      // a send's copy number
}

// read decodes a recording. A last line without its newline is the tail
// a crash cut short, and is dropped.
func read(name string, r io.Reader) (*recording, error) {
	br := bufio.NewReader(r)
	rec := &recording{file: name}
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			if line == 1 {
				return nil, fmt.Errorf("%s: empty recording", name)
			}
			return rec, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		if line == 1 {
			err = rec.header(b)
		} else {
			err = rec.add(b)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: line %d: %w", name, line, err)
		}
	}
}

func (rec *recording) header(b []byte) error {
	if err := json.Unmarshal(b, &rec.head); err != nil {
		return err
	}
	if rec.Format != Format || rec.Process == "" {
		return fmt.Errorf("not a %s header", Format)
	}
	return nil
}

func (rec *recording) add(b []byte) error {
	e := &event{Op: trace.None, Pos: trace.None, seq: trace.None, line: b}
	if err := json.Unmarshal(b, e); err != nil {
		return err
	}
	e.kind = trace.Parse[trace.Kind](e.Kind)
	if e.kind == trace.KindInvalid {
		return fmt.Errorf("unknown event kind %q", e.Kind)
	}
	if want := int64(len(rec.events)) + 1; e.N != want {
		return fmt.Errorf("event n=%d where n=%d is due: events are missing", e.N, want)
	}
	rec.events = append(rec.events, e)
	return nil
}
