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
	"errors"
	"fmt"
	"io"
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
		var err error
		if read == nil {
			err = fmt.Errorf("unknown span format %q", f.Format)
		} else if err = read(r, b); r.N <= 0 {
			err = errors.New("larger than 1 GiB")
		}
		if err != nil {
			return nil, &trace.InputError{File: f.Name, Event: -1, Msg: err.Error()}
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
		if err := dec.Decode(&v); err == io.EOF && n > 0 {
			return nil
		} else if err != nil {
			return fmt.Errorf("document %d: %v", n+1, inWords(err))
		}
		if err := each(&v); err != nil {
			return inWords(err)
		}
	}
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
// JSON mapping writes 64-bit integers as strings).
type number int64

func (n *number) UnmarshalJSON(b []byte) error {
	v, err := strconv.ParseInt(strings.Trim(string(b), `"`), 10, 64)
	if err != nil {
		return fmt.Errorf("a time or duration of %s: want a whole number that fits in 64 bits", b)
	}
	*n = number(v)
	return nil
}
