// Package tracetest builds traces in code, for tests and examples.
package tracetest

import (
	"bytes"
	"math"
	"os"
	"strconv"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/codec"

	json "github.com/goccy/go-json"
)

// Builder assembles a trace in code, for tests and examples:
//
//	tr, err := tracetest.NewBuilder("P0", "P1").
//		Send(0.4, "P0", "P1", "m1").
//		Recv(0.9, "P1", "m1").
//		Build()
//
// Times are in seconds. Methods record events without checking them;
// Build writes the trace as a document and decodes it, so it reports
// the first problem exactly as the decoder does.
type Builder struct {
	procs  []string
	params trace.Params
	events []builderEvent
}

// builderEvent is an event as recorded: its time, then its fields as key
// and value.
type builderEvent struct {
	t      float64
	fields []any
}

// NewBuilder starts a trace over the given processes, in ring order.
func NewBuilder(procs ...string) *Builder {
	return &Builder{procs: append([]string(nil), procs...)}
}

func (b *Builder) add(t float64, p, kind string, fields ...any) *Builder {
	b.events = append(b.events, builderEvent{t: t, fields: append([]any{"p", p, "kind", kind}, fields...)})
	return b
}

// Send records that p sends message msg to process to at time t.
func (b *Builder) Send(t float64, p, to, msg string) *Builder {
	return b.add(t, p, "send", "to", to, "msg", msg)
}

// Recv records that p receives message msg at time t.
func (b *Builder) Recv(t float64, p, msg string) *Builder {
	return b.add(t, p, "recv", "msg", msg)
}

// Internal records an internal operation of p at time t.
func (b *Builder) Internal(t float64, p string) *Builder { return b.add(t, p, "internal") }

// Checkpoint records a tick of p's basic checkpoint timer at time t.
func (b *Builder) Checkpoint(t float64, p string) *Builder { return b.add(t, p, "checkpoint") }

// Flush records that p writes its volatile message log to stable storage.
func (b *Builder) Flush(t float64, p string) *Builder { return b.add(t, p, "flush") }

// Fail records a crash of p at time t, down for the restart_delay.
func (b *Builder) Fail(t float64, p string) *Builder { return b.add(t, p, "fail") }

// FailDown records a crash of p at time t that keeps it down for down
// seconds.
func (b *Builder) FailDown(t float64, p string, down float64) *Builder {
	return b.add(t, p, "fail", "down", down)
}

// Params sets the trace's replay defaults; zero fields stay unset.
func (b *Builder) Params(p trace.Params) *Builder {
	b.params = p
	return b
}

// Label attaches a label to the last event recorded so far.
func (b *Builder) Label(s string) *Builder {
	if n := len(b.events); n > 0 {
		b.events[n-1].fields = append(b.events[n-1].fields, "label", s)
	}
	return b
}

// Build validates the recorded events and returns the trace, or the
// first problem as an *InputError.
func (b *Builder) Build() (*trace.Trace, error) {
	if err := trace.Validate(&trace.Trace{Processes: b.procs, Params: b.params}); err != nil {
		return nil, err
	}
	doc := append([]byte(`{"format":"`+codec.TraceFormat+`","processes":`), marshal(b.procs)...)
	doc = append(doc, `,"events":[`...)
	for i, e := range b.events {
		if i > 0 {
			doc = append(doc, ',')
		}
		doc = append(doc, "\n{\"t\":"...)
		doc = append(doc, jsonSeconds(e.t)...)
		for k := 0; k < len(e.fields); k += 2 {
			doc = append(doc, `,"`+e.fields[k].(string)+`":`...)
			if f, ok := e.fields[k+1].(float64); ok {
				doc = append(doc, jsonSeconds(f)...)
			} else {
				doc = append(doc, marshal(e.fields[k+1])...)
			}
		}
		doc = append(doc, '}')
	}
	tr, err := codec.ReadTrace("", bytes.NewReader(append(doc, "\n]}\n"...)))
	if err != nil {
		return nil, err
	}
	tr.Params = b.params
	return tr, nil
}

func marshal(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// jsonSeconds writes a time so that the decoder reads it back as
// FromSeconds converts it, or rejects it as FromSeconds does.
func jsonSeconds(v float64) []byte {
	if t, ok := trace.FromSeconds(v); ok {
		return t.AppendJSON(nil)
	}
	switch {
	case math.IsNaN(v):
		return []byte("null")
	case math.IsInf(v, 1):
		return []byte("1e999")
	case math.IsInf(v, -1):
		return []byte("-1e999")
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 64)
}

// ReadRunFile reads the run in the named file.
func ReadRunFile(path string) (*trace.Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return codec.ReadRun(path, f)
}
