// Package foreign reads the logs and traces of other tools — ShiViz and
// GoVector logs, DistributedClocks tracing logs, OpenTelemetry, Jaeger
// and Zipkin spans — into executions (shiviz.Execution), telling each
// file's format from its first bytes, and refusing at once what is no
// log at all.
package foreign

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-json/jsontext"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/shiviz"
	"github.com/ckpt-dev/ckpt/trace/spans"
)

// The formats Read takes, as --from names them: ShiViz or GoVector text,
// DistributedClocks tracing records, and the span formats.
const (
	ShiViz  = "shiviz"
	Tracing = "tracing"
)

// Formats lists every format, in the order help texts give them.
var Formats = []string{ShiViz, Tracing, spans.OTLP, spans.Jaeger, spans.Zipkin}

// File is one input file.
type File struct {
	// Name names the file in messages.
	Name string
	R    io.Reader
}

// Options say how to read the files.
type Options struct {
	// From forces the format of every file ("": detect each).
	From string
	// Parse applies to ShiViz and GoVector logs.
	Parse shiviz.ParseOptions
}

// headSize is how much of a file its format is told from.
const headSize = 64 << 10

// Read reads the files, which must be of one kind — vector-clock logs
// (ShiViz, GoVector, tracing records), merged like the files of one
// log, or spans — into a log. Errors are *trace.InputError naming the
// file.
func Read(files []File, opts Options) (*shiviz.Log, error) {
	var vc []shiviz.Source
	var sp []spans.File
	for _, f := range files {
		br := bufio.NewReaderSize(f.R, headSize)
		// A byte-order mark is skipped here, for every reader after:
		// detect, the ShiViz parser, the span readers.
		if bom, _ := br.Peek(3); string(bom) == "\ufeff" {
			br.Discard(3)
		}
		format := opts.From
		if format == "" {
			head, _ := br.Peek(headSize)
			var err error
			if format, err = detect(head); err != nil {
				return nil, &trace.InputError{File: f.Name, Event: -1, Msg: err.Error()}
			}
		}
		if format == ShiViz || format == Tracing {
			vc = append(vc, shiviz.Source{Name: f.Name, R: br, Tracing: format == Tracing})
		} else {
			sp = append(sp, spans.File{Name: f.Name, R: br, Format: format})
		}
	}
	if len(vc) > 0 && len(sp) > 0 {
		return nil, &trace.InputError{File: sp[0].Name, Event: -1, Msg: fmt.Sprintf("holds %s spans but %s is a vector-clock log: import them separately", sp[0].Format, vc[0].Name)}
	}
	if len(vc) > 0 {
		return shiviz.Parse(vc, opts.Parse)
	}
	if opts.Parse.Regex != "" || opts.Parse.Delimiter != "" {
		return nil, &trace.InputError{File: sp[0].Name, Event: -1, Msg: "--regex and --delimiter apply to ShiViz and GoVector logs, not to spans"}
	}
	ex, err := spans.Read(sp)
	if err != nil {
		return nil, err
	}
	log := &shiviz.Log{Executions: []*shiviz.Execution{ex}}
	for _, f := range sp {
		log.Files = append(log.Files, f.Name)
		if !strings.Contains(log.Layout, f.Format) {
			log.Layout = strings.TrimPrefix(log.Layout+", "+f.Format, ", ")
		}
	}
	log.Layout += " spans"
	return log, nil
}

// detect tells a file's format from its first bytes: JSON whose first
// object has resourceSpans is OTLP, data, spans or processes Jaeger,
// TracerIdentity or VectorClock a tracing log; JSON arrays (of objects,
// of arrays, or anything JSON) are Zipkin's (zipkin);
// any other text is a ShiViz or GoVector log. Binary data (a NUL byte)
// and text that is not UTF-8 are errors. head is past the byte-order
// mark Read skips.
func detect(head []byte) (string, error) {
	if i := bytes.IndexByte(head, 0); i >= 0 {
		return "", fmt.Errorf("binary data (a NUL byte at offset %d), not a log", i)
	}
	for t := head; len(t) > 0 && utf8.FullRune(t); { // a character cut by the end of head is no error
		r, n := utf8.DecodeRune(t)
		if r == utf8.RuneError && n == 1 {
			return "", fmt.Errorf("not UTF-8 text (a bad byte at offset %d), so not a log", len(head)-len(t))
		}
		t = t[n:]
	}
	switch t := bytes.TrimLeft(head, " \t\r\n"); {
	case len(t) > 0 && t[0] == '[' && zipkin(t):
		return spans.Zipkin, nil
	case len(t) > 0 && t[0] == '{':
		return jsonFormat(t)
	}
	return ShiViz, nil
}

// zipkin reports whether head, which starts with "[", holds Zipkin
// spans: JSON arrays only (one document, or one a line as exporters
// write them), the last maybe cut by the end of head. A log line may
// start with "[INFO]" or "[2013-05-24 …", which is no JSON, and a ShiViz
// log whose first event text is a JSON array has its host and clock line
// after it. An array that is no JSON is Zipkin's, to be refused there
// with the syntax error, when JSON arrays come before it or it starts
// with an object or an array.
func zipkin(head []byte) bool {
	dec := jsontext.NewDecoder(bytes.NewReader(head))
	for first := true; dec.PeekKind() == '['; first = false {
		if err := dec.SkipValue(); errors.Is(err, io.ErrUnexpectedEOF) {
			return true
		} else if err != nil {
			u := bytes.TrimLeft(head[1:], " \t\r\n")
			return !first || len(u) > 0 && (u[0] == '{' || u[0] == '[')
		}
	}
	_, err := dec.ReadToken()
	return err == io.EOF
}

// jsonFormat tells the format of a JSON object by its first known key.
func jsonFormat(head []byte) (string, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(head))
	if _, err := dec.ReadToken(); err == nil {
		for dec.PeekKind() == '"' {
			name, err := dec.ReadToken()
			if err != nil {
				break
			}
			switch name.String() {
			case "format":
				// ckpt's own documents have a "processes" array, which
				// is no Jaeger map: say what they are instead.
				if dec.PeekKind() == '"' {
					if v, err := dec.ReadToken(); err == nil && strings.HasPrefix(v.String(), "ckpt/") {
						return "", ckptDoc(v.String())
					}
					continue
				}
			case "resourceSpans":
				return spans.OTLP, nil
			case "data", "spans", "processes", "traceID":
				return spans.Jaeger, nil
			case "TracerIdentity", "VectorClock", "Tag", "Body":
				return Tracing, nil
			}
			if dec.SkipValue() != nil {
				break
			}
		}
	}
	return "", fmt.Errorf("a JSON document, but not one ckpt imports (OpenTelemetry resourceSpans, Jaeger data or spans, a Zipkin array of spans, DistributedClocks tracing records)")
}

// ckptDoc says what to do with one of ckpt's own documents, of format
// f, given to import.
func ckptDoc(f string) error {
	switch kind, _, _ := strings.Cut(strings.TrimPrefix(f, "ckpt/"), "@"); kind {
	case "trace":
		return fmt.Errorf("already a ckpt trace (%s): verify or check it directly", f)
	case "run":
		return fmt.Errorf("already a ckpt run (%s): check it directly", f)
	case "recording":
		return fmt.Errorf("a ckpt recording (%s): import it with the other processes' recordings, and nothing else", f)
	}
	return fmt.Errorf("a ckpt document (%s), not a log or spans", f)
}
