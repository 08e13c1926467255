package record

import (
	"strconv"

	json "github.com/goccy/go-json"
	"github.com/goccy/go-json/jsontext"

	"github.com/ckpt-dev/ckpt/trace"
)

// A recording is JSON Lines: a header line, then one line per event,
// appended with no allocation (the hot path of every recorded call).
// Its keys are a run's (SPEC §6, docs/formats.md) plus what merging
// needs and a run does not have:
//
//	n     the event's number in its process, 1, 2, … across restarts
//	ns    the process's clock, Unix nanoseconds
//	tx    on a receipt, log, discard, unconsumed or control_recv: the n
//	      of the send that transmitted the copy, at process "from"
//	failure  {"p": process, "n": k}: the k-th failure of p
//
// Merging turns n, tx and failure into seq, copy and failure seqs.

// headLine is the recording's first line, newline included.
func (r *Recorder) headLine() []byte {
	b, _ := json.MarshalWithOption(head{Format: Format, Process: r.name, Processes: r.opt.Processes, Algorithm: r.opt.Algorithm}, json.DisableHTMLEscape())
	return append(b, '\n')
}

// begin starts the line of a new event of kind at Unix time ns (0: now);
// the caller holds mu.
func (r *Recorder) begin(kind trace.Kind, ns int64) []byte {
	r.n++
	if ns == 0 {
		ns = r.opt.Now().UnixNano()
	}
	ns = max(ns, r.last) // never before the last event
	r.last = ns
	b := append(r.buf, `{"n":`...)
	b = strconv.AppendInt(b, r.n, 10)
	b = append(b, `,"ns":`...)
	b = strconv.AppendInt(b, ns, 10)
	b = append(b, `,"kind":"`...)
	b = append(b, kind.String()...)
	return append(b, '"')
}

// end closes the line and writes the buffer out once it is full.
func (r *Recorder) end(b []byte) error {
	r.buf = append(b, "}\n"...)
	if len(r.buf) >= r.opt.Buffer {
		return r.flush()
	}
	return r.err
}

// event records one event of kind at Unix time ns (0: now; never
// before the last event), whose fields fill writes (nil: none).
func (r *Recorder) event(kind trace.Kind, ns int64, fill func([]byte) []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return r.err
	}
	b := r.begin(kind, ns)
	if fill != nil {
		b = fill(b)
	}
	return r.end(b)
}

// transmit records a send or control_send whose fields fill writes,
// with the wire header it returns, and writes out everything recorded so
// far before it returns the wire bytes (the header, then payload): no
// process can then hold a message whose send a crash erased.
func (r *Recorder) transmit(kind trace.Kind, payload []byte, fill func([]byte) ([]byte, Header)) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return nil, r.err
	}
	b, h := fill(r.begin(kind, 0))
	r.buf = append(b, "}\n"...)
	if err := r.flush(); err != nil {
		return nil, err
	}
	return wire(&h, payload), nil
}

// receive records an event about the transmission in wire (a copy, or
// a control message for control_recv) whose fields fill writes; it
// returns the wire's header and payload.
func (r *Recorder) receive(kind trace.Kind, wire []byte, fill func([]byte, Header) []byte) (Header, []byte, error) {
	h, payload, err := Parse(wire)
	if err == nil && kind == trace.ControlRecv && h.Control == trace.ControlNone {
		err = ErrWire
	}
	if err != nil {
		return h, nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return h, nil, r.err
	}
	return h, payload, r.end(fill(r.begin(kind, 0), h))
}

func appendStr(b []byte, s string) []byte {
	b, _ = jsontext.AppendQuote(b, s) // invalid UTF-8 becomes U+FFFD
	return b
}

func str(b []byte, key, s string) []byte { return appendStr(field(b, key), s) }

func num(b []byte, key string, v int64) []byte { return strconv.AppendInt(field(b, key), v, 10) }

// field starts the next field of a line: ,"key":
func field(b []byte, key string) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

// optNum writes v unless it is trace.None.
func optNum(b []byte, key string, v int32) []byte {
	if v == trace.None {
		return b
	}
	return num(b, key, int64(v))
}

// proc names process i of Options.Processes.
func (r *Recorder) proc(i int32) string {
	if i >= 0 && int(i) < len(r.opt.Processes) {
		return r.opt.Processes[i]
	}
	return "?" + strconv.Itoa(int(i))
}

// pb writes an MS piggyback as a run does: {"f": {"P0": 2, …}, "sn": …}.
func (r *Recorder) pb(b []byte, pb *trace.Piggyback) []byte {
	if pb == nil {
		return b
	}
	b = append(b, `,"pb":{"f":{`...)
	for i, e := range pb.F {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendStr(b, r.proc(e.P))
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(e.Count), 10)
	}
	b = append(b, '}')
	b = optNum(b, "sn", pb.Sn)
	return append(b, '}')
}

// body writes an MS Rollback request's body: origin, count, r.
func (r *Recorder) body(b []byte, c *trace.ControlBody) []byte {
	if c == nil {
		return b
	}
	b = append(b, `,"body":{"origin":`...)
	b = appendStr(b, r.proc(c.Origin))
	b = optNum(b, "count", c.Count)
	b = optNum(b, "r", c.R)
	return append(b, '}')
}

func failure(b []byte, f Failure) []byte {
	if f.P == "" {
		return b
	}
	b = append(b, `,"failure":{"p":`...)
	b = appendStr(b, f.P)
	b = num(b, "n", int64(f.N))
	return append(b, '}')
}
