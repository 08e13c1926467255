package codec

import (
	"math"

	"github.com/ckpt-dev/ckpt/trace"

	"github.com/goccy/go-json/jsontext"
)

// Reading what ckpt/run@2 writes by difference or reference
// (runcompact.go): each rebuilds the very value the writer had.

// deltaWire is a vector time by its differences: {"set": [[i, inc,
// count], ...]}.
type deltaWire struct {
	Set jsontext.Value `json:"set"`
}

// listWire is a receipt list by reference: {"of": seq, "keep": k, "add":
// [...]}.
type listWire struct {
	Of   jsontext.Value `json:"of"`
	Keep jsontext.Value `json:"keep"`
	Add  jsontext.Value `json:"add"`
}

// delta reads the vector of an event of process p written as the entries
// that differ from its base, in increasing process order.
func (d *runDecoder) delta(f *frame, key string, v []byte, p int32) (trace.VT, error) {
	if d.chain == nil {
		return nil, f.eventErr("%q by its differences needs the header's \"processes\" before the events", key)
	}
	if p < 0 || int(p) >= len(d.chain.prev) {
		return nil, f.eventErr("%q by its differences needs the event's \"p\"", key)
	}
	w := &d.dw
	w.Set = w.Set[:0]
	if err := unmarshal(v, w); err != nil {
		return nil, f.malformed(err)
	}
	if len(w.Set) == 0 || w.Set[0] != '[' {
		return nil, f.eventErr("%q by its differences must have \"set\", an array of [process, inc, count]", key)
	}
	var rows [][3]int64
	if !fast(w.Set, &rows) {
		return nil, f.eventErr("%q.set must be an array of [process, inc, count] triples of integers", key)
	}
	vt := make(trace.VT, len(d.chain.prev))
	d.chain.baseInto(p, vt)
	last := int64(-1)
	for _, r := range rows {
		switch {
		case r[0] <= last || r[0] >= int64(len(vt)):
			return nil, f.eventErr("%q.set: process %d out of order or out of range (%d processes)", key, r[0], len(vt))
		case !isCount(r[1]) || !isCount(r[2]):
			return nil, f.eventErr("%q.set: inc and count must be integers in [0, %d]", key, math.MaxInt32)
		}
		last = r[0]
		vt[r[0]] = trace.VTEntry{Inc: int32(r[1]), Count: int32(r[2])}
	}
	return vt, nil
}

// ref reads the seq of an earlier event with a body, which key refers to.
func (d *runDecoder) ref(f *frame, key string, v []byte) (*trace.RunEvent, error) {
	s, err := intField(f, key, v, 0)
	if err != nil {
		return nil, err
	}
	if int(s) >= d.cur || d.run.Events[s].Body == trace.None {
		return nil, f.eventErr("%q is %d, which is no earlier event with a body", key, s)
	}
	return &d.run.Events[s], nil
}

// receivedDelta reads a receipt list as the first keep identities of the
// list at event of and then those of add.
func (d *runDecoder) receivedDelta(f *frame, v []byte) ([]trace.Identity, error) {
	w := &d.lw
	w.Of, w.Keep, w.Add = w.Of[:0], w.Keep[:0], w.Add[:0]
	if err := unmarshal(v, w); err != nil {
		return nil, f.malformed(err)
	}
	if len(w.Of) == 0 || len(w.Keep) == 0 || len(w.Add) == 0 {
		return nil, f.eventErr(`"body.received" by reference must have "of", "keep" and "add"`)
	}
	e, err := d.ref(f, "body.received.of", w.Of)
	if err != nil {
		return nil, err
	}
	base := d.run.Bodies[e.Body].Received
	keep, err := intField(f, "body.received.keep", w.Keep, 0)
	if err != nil {
		return nil, err
	}
	if int(keep) > len(base) {
		return nil, f.eventErr(`"body.received.keep" is %d, but the list at seq %d has %d`, keep, e.Seq, len(base))
	}
	if err := want(f, "body.received.add", w.Add, '['); err != nil {
		return nil, err
	}
	add, err := d.received(f, w.Add)
	if err != nil {
		return nil, err
	}
	return append(base[:keep:keep], add...), nil
}
