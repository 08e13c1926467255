package codec

import (
	"math"
	"strconv"

	"github.com/ckpt-dev/ckpt/trace"

	"github.com/goccy/go-json/jsontext"
)

// Writing ckpt/run@2 (docs/formats.md, "Compact runs"): a vector time as
// {"set": [[process, inc, count], ...]}, the entries that differ from the
// base the reader rebuilds (runchain.go); a control body written before,
// or one equal to it, as {"of": seq}, the event that wrote it; a token's
// receipt list as {"of": seq, "keep": k, "add": [...]}, the first k
// identities of the list the origin's previous token carried (at event
// seq) and then the ones listed. A vector that differs from its base in
// more than half its entries, and a list that shares no prefix, are
// written in full.

// compact is the writer's state for ckpt/run@2.
type compact struct {
	chain *vtChain
	// wrote is, per body of the run, the seq of the event that wrote it,
	// None before; seen maps the text of each body written to that seq
	// (runbodies.go), so that equal bodies are written once, as the
	// reader shares them.
	wrote []int32
	seen  bodySeen
	// lists is, per origin, the receipt list its latest token carried
	// and the seq of the event that wrote it.
	lists map[int32]listAt
	// base and diff are scratch: a vector's base and the processes where
	// it differs.
	base trace.VT
	diff []int32
}

type listAt struct {
	seq int32
	ids []trace.Identity
}

func newCompact(n int) *compact {
	return &compact{chain: newVTChain(n), lists: map[int32]listAt{}, base: make(trace.VT, n)}
}

// vt writes vector vt of an event of process p.
func (e *runEncoder) vt(b []byte, p int32, vt trace.VT) []byte {
	c := e.c
	if c == nil || p < 0 || int(p) >= len(c.chain.prev) || len(vt) != len(c.chain.prev) {
		return AppendVT(b, vt)
	}
	var few bool
	if c.diff, few = c.chain.diff(p, vt, c.base, c.diff[:0], len(vt)/2); !few {
		return AppendVT(b, vt)
	}
	b = appendArray(append(b, `{"set":`...), len(c.diff), func(b []byte, k int) []byte {
		i := c.diff[k]
		return appendInts(b, i, vt[i].Inc, vt[i].Count)
	})
	return append(b, '}')
}

// bodyAt writes body, the run's body number idx, at event seq: by
// reference when it was written before.
func (e *runEncoder) bodyAt(b []byte, seq int, idx int32, body *trace.ControlBody) []byte {
	c := e.c
	if c == nil {
		return e.body(b, seq, body)
	}
	for int(idx) >= len(c.wrote) {
		c.wrote = append(c.wrote, trace.None)
	}
	at := c.wrote[idx]
	if at == trace.None {
		start := len(b)
		b = e.body(b, seq, body)
		k := c.seen.key(b[start:])
		var ok bool
		if at, ok = c.seen.index[k]; !ok {
			c.seen.index[k], c.wrote[idx] = int32(seq), int32(seq)
			return b
		}
		b = b[:start]
		c.wrote[idx] = at
	}
	b = strconv.AppendInt(append(b, `,"body":{"of":`...), int64(at), 10)
	return append(b, '}')
}

// received writes a token's receipt list [["msg", inc], ...], at event
// seq, for origin o: by reference to the list of o's previous token when
// they share a prefix.
func (e *runEncoder) received(b []byte, seq int, o int32, ids []trace.Identity) []byte {
	start := 0
	if c := e.c; c != nil && o != trace.None {
		last, ok := c.lists[o]
		c.lists[o] = listAt{seq: int32(seq), ids: ids}
		for ok && start < len(ids) && start < len(last.ids) && ids[start] == last.ids[start] {
			start++
		}
		if start > 0 {
			b = strconv.AppendInt(append(b, `{"of":`...), int64(last.seq), 10)
			b = append(appendInt(b, "keep", int32(start)), `,"add":`...)
		}
	}
	ids = ids[start:]
	b = appendArray(b, len(ids), func(b []byte, i int) []byte {
		b = appendString(append(b, '['), nameOf(e.run.Msgs, ids[i].Msg))
		return append(strconv.AppendInt(append(b, ','), int64(ids[i].Inc), 10), ']')
	})
	if start > 0 {
		b = append(b, '}')
	}
	return b
}

// Reading what ckpt/run@2 writes by difference or reference: each
// rebuilds the very value the writer had.

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
	if err := split(v, w); err != nil {
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
	if int(s) >= f.n || d.run.Events[s].Body == trace.None {
		return nil, f.eventErr("%q is %d, which is no earlier event with a body", key, s)
	}
	return &d.run.Events[s], nil
}

// receivedDelta reads a receipt list as the first keep identities of the
// list at event of and then those of add.
func (d *runDecoder) receivedDelta(f *frame, v []byte) ([]trace.Identity, error) {
	w := &d.lw
	if err := split(v, w); err != nil {
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
