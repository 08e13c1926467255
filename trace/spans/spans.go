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
// that puts every receive after its send (skew.Deskew). Nothing is
// dropped silently: Execution.Notes counts spans, edges, messages,
// shifts, and every span skipped, with the reason.
package spans

import (
	"errors"
	"fmt"
	"io"
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

// kind is a span's kind, as OpenTelemetry numbers them.
type kind uint8

const (
	unset kind = iota
	internal
	server
	client
	producer
	consumer
)

var kindNames = [...]string{"", "internal", "server", "client", "producer", "consumer"}

// parseKind reads a kind by any of its spellings ("SERVER", "server",
// "SPAN_KIND_SERVER"); anything else is unset.
func parseKind(s string) kind {
	s = strings.ToLower(strings.TrimPrefix(strings.ToUpper(s), "SPAN_KIND_"))
	for k, n := range kindNames {
		if n != "" && n == s {
			return kind(k)
		}
	}
	return unset
}

// span is one span, whatever format it came from.
type span struct {
	trace, id, parent string
	service, instance string
	name              string
	kind              kind
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
	b := newBuilder()
	for _, f := range files {
		r := &capped{r: f.R, n: maxDoc}
		var err error
		switch f.Format {
		case OTLP:
			err = readOTLP(r, b)
		case Jaeger:
			err = readJaeger(r, b)
		case Zipkin:
			err = readZipkin(r, b)
		default:
			err = fmt.Errorf("unknown span format %q", f.Format)
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
			return fmt.Errorf("document %d: %v", n+1, err)
		}
		if err := each(&v); err != nil {
			return err
		}
	}
}

// capped fails a read beyond n bytes.
type capped struct {
	r io.Reader
	n int64
}

func (c *capped) Read(b []byte) (int, error) {
	if c.n <= 0 {
		return 0, errors.New("larger than 1 GiB")
	}
	b = b[:min(int64(len(b)), c.n)]
	n, err := c.r.Read(b)
	c.n -= int64(n)
	return n, err
}

// number is an integer written as a JSON number or string (protobuf's
// JSON mapping writes 64-bit integers as strings).
type number int64

func (n *number) UnmarshalJSON(b []byte) error {
	v, err := strconv.ParseInt(strings.Trim(string(b), `"`), 10, 64)
	*n = number(v)
	return err
}

// kindValue is a span kind written as an OTLP enum number or name.
type kindValue kind

func (k *kindValue) UnmarshalJSON(b []byte) error {
	if v, err := strconv.Atoi(string(b)); err == nil {
		*k = kindValue(kind(min(max(v, 0), int(consumer))))
		return nil
	}
	*k = kindValue(parseKind(strings.Trim(string(b), `"`)))
	return nil
}
