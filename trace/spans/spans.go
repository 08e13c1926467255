// Package spans reads distributed-tracing spans — OpenTelemetry OTLP
// JSON, Jaeger JSON and Zipkin v2 JSON — into the execution model that
// the ShiViz importer builds (shiviz.Execution), so that one conversion
// turns both into execution traces.
//
// A process is a service (an instance of it, when the file shows a
// service on several); a span is an event at its start; a parent and
// child span on different processes become a request message and, for
// a synchronous call, a response message from the child's end back to
// the parent. Each process's clock is then shifted by the least amount
// that puts every receive after its send (Execution.Deskew). Nothing is
// dropped silently: Execution.Notes counts spans, edges, messages,
// shifts, and every span skipped, with the reason.
package spans

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-json"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/shiviz"
)

// The span formats Read takes.
const (
	OTLP   = "otlp"
	Jaeger = "jaeger"
	Zipkin = "zipkin"
)

// kinds are the span kinds in OpenTelemetry's numbering; "" is unset.
var kinds = []string{"", "internal", "server", "client", "producer", "consumer"}

// parseKind reads a kind by any of its spellings ("SERVER", "server",
// "SPAN_KIND_SERVER"); anything else is unset.
func parseKind(s string) string {
	if s = strings.ToLower(strings.TrimPrefix(strings.ToUpper(s), "SPAN_KIND_")); slices.Contains(kinds, s) {
		return s
	}
	return ""
}

// span is one span, whatever format it came from.
type span struct {
	// parent is the key (ref) of the parent span.
	trace, id, parent string
	service, instance string
	name, kind        string
	// start and end are in nanoseconds since the epoch, by the clock of
	// the span's process.
	start, end int64
	// follows says the parent reference is follows-from (asynchronous).
	follows bool
	// shared marks Zipkin's server half of an RPC, which shares the
	// client half's id.
	shared bool
	links  int
}

// ref is the key of the span id of trace, "" for no span.
func ref(trace, id string) string {
	if id == "" {
		return ""
	}
	return trace + "/" + id
}

// maxDoc bounds a span file, as the ShiViz reader bounds a log.
const maxDoc = 1 << 30

// File is one file of spans.
type File struct {
	// Name names the file in messages.
	Name string
	R    io.Reader
	// Format is OTLP, Jaeger or Zipkin.
	Format string
}

// Read decodes the files and builds one execution of all their spans.
// Errors are *trace.InputError naming the file.
func Read(files []File) (*shiviz.Execution, error) {
	b := &builder{byKey: map[string]int32{}, count: map[string]int{}, ex: &shiviz.Execution{}}
	for _, f := range files {
		read := map[string]func(io.Reader, *builder) error{OTLP: readOTLP, Jaeger: readJaeger, Zipkin: readZipkin}[f.Format]
		r := &io.LimitedReader{R: f.R, N: maxDoc + 1}
		l := &lines{r: r}
		var err error
		if read == nil {
			err = fmt.Errorf("unknown span format %q", f.Format)
		} else if err = read(l, b); r.N <= 0 {
			err = errors.New("larger than 1 GiB")
		}
		if err != nil {
			return nil, l.inputError(f, err)
		}
	}
	ex, err := b.build()
	if err != nil {
		return nil, &trace.InputError{File: files[0].Name, Event: -1, Msg: err.Error()}
	}
	return ex, nil
}

// decodeAll decodes a stream of JSON values (one document, or one per
// line as exporters write them) into fresh values of T.
func decodeAll[T any](r io.Reader, each func(*T) error) error {
	dec := json.NewDecoder(r)
	for n := 0; ; n++ {
		var v T
		start := dec.InputOffset()
		if err := dec.Decode(&v); err == io.EOF && n > 0 {
			return nil
		} else if err != nil {
			return &docError{n + 1, start, err}
		}
		if err := each(&v); err != nil {
			return inWords(err)
		}
	}
}

// docError is a failure to decode the doc-th document of a file, which
// starts after offset start.
type docError struct {
	doc   int
	start int64
	err   error
}

func (e *docError) Error() string { return fmt.Sprintf("document %d: %v", e.doc, e.err) }

// lines passes a file on, keeping where its lines end, so that an error
// at a byte offset can name its line (8 bytes a line: a span file's
// lines are tens of bytes).
type lines struct {
	r    io.Reader
	off  int64
	ends []int64
}

func (l *lines) Read(b []byte) (int, error) {
	n, err := l.r.Read(b)
	for i := 0; i < n; {
		j := bytes.IndexByte(b[i:n], '\n')
		if j < 0 {
			break
		}
		l.ends, i = append(l.ends, l.off+int64(i+j)), i+j+1
	}
	l.off += int64(n)
	return n, err
}

// inputError words err, reading f, for a user: the line of a syntax or
// type error (the decoder counts the bytes it read), or the last for a
// file cut short; and no Go type (inWords).
func (l *lines) inputError(f File, err error) error {
	var de *docError
	if !errors.As(err, &de) {
		return &trace.InputError{File: f.Name, Event: -1, Msg: err.Error()}
	}
	off, msg := l.off, inWords(de.err).Error()
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(de.err, &se):
		off, msg = se.Offset, "malformed JSON: "+msg
	case errors.As(de.err, &te):
		off = de.start + te.Offset // counted from the document's start
	case errors.Is(de.err, io.ErrUnexpectedEOF):
		msg = "the JSON is cut short: the file ends inside it"
	}
	if de.doc > 1 {
		msg = fmt.Sprintf("document %d: %s", de.doc, msg)
	}
	line, _ := slices.BinarySearch(l.ends, off-1)
	return &trace.InputError{File: f.Name, Event: -1, Line: line + 1, Msg: msg}
}

// inWords says a value of the wrong JSON kind by its field's path and
// the kind wanted, where the decoder's error names Go types.
func inWords(err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Type == nil {
		return err
	}
	want, ok := map[reflect.Kind]string{reflect.Map: "an object", reflect.Struct: "an object", reflect.Slice: "an array",
		reflect.Array: "an array", reflect.String: "a string", reflect.Bool: "true or false"}[te.Type.Kind()]
	if !ok {
		want = "a number"
	}
	field := "the document"
	if te.Field != "" {
		field = strconv.Quote(te.Field)
	}
	return fmt.Errorf("%s holds a JSON %s where %s is wanted", field, te.Value, want)
}

// number is an integer written as a JSON number or string (protobuf's
// JSON mapping writes 64-bit integers as strings). One that is no whole
// number of 64 bits keeps its text, as written, for nanos to refuse
// naming its span: the decoder knows no span ids.
type number struct {
	v   int64
	bad string
}

func (n *number) UnmarshalJSON(b []byte) error {
	v, err := strconv.ParseInt(strings.Trim(string(b), `"`), 10, 64)
	if *n = (number{v: v}); err != nil && string(b) != "null" {
		n.bad = string(b)
	}
	return nil
}

// maxNanos bounds a span's times and durations in nanoseconds (the year
// 2116), so that a start and a duration add up without overflow.
const maxNanos = math.MaxInt64 / 2

// nanos is n, the field of span id in units of unit nanoseconds (1 or
// 1000), in nanoseconds.
func nanos(id, field string, n number, unit int64) (int64, error) {
	if n.bad == "" && n.v <= maxNanos/unit && n.v >= -maxNanos/unit {
		return n.v * unit, nil
	}
	if n.bad == "" {
		n.bad = strconv.FormatInt(n.v, 10)
	}
	return 0, fmt.Errorf("span %q: %s %s: want a whole number of %s, at most %d", id, field, n.bad,
		map[int64]string{1: "nanoseconds", 1000: "microseconds"}[unit], maxNanos/unit)
}
