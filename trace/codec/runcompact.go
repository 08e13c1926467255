package codec

import (
	"strconv"

	"github.com/ckpt-dev/ckpt/trace"
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
	// None before; seen maps the text of each body written to that seq,
	// so that equal bodies are written once, as the reader shares them.
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
	return &compact{chain: newVTChain(n), lists: map[int32]listAt{}, seen: newBodySeen(), base: make(trace.VT, n)}
}

// vt writes vector vt of an event of process p.
func (e *runEncoder) vt(b []byte, p int32, vt trace.VT) []byte {
	c := e.c
	if c == nil || p < 0 || int(p) >= len(c.chain.prev) || len(vt) != len(c.chain.prev) {
		return appendVT(b, vt)
	}
	var few bool
	if c.diff, few = c.chain.diff(p, vt, c.base, c.diff[:0], len(vt)/2); !few {
		return appendVT(b, vt)
	}
	b = append(b, `{"set":[`...)
	for k, i := range c.diff {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(vt[i].Inc), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(vt[i].Count), 10)
		b = append(b, ']')
	}
	return append(b, "]}"...)
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
	b = append(b, `,"body":{"of":`...)
	b = strconv.AppendInt(b, int64(at), 10)
	return append(b, '}')
}

// received writes a token's receipt list, at event seq, for origin o.
func (e *runEncoder) received(b []byte, seq int, o int32, ids []trace.Identity) []byte {
	start := 0
	if c := e.c; c != nil && o != trace.None {
		last, ok := c.lists[o]
		c.lists[o] = listAt{seq: int32(seq), ids: ids}
		for ok && start < len(ids) && start < len(last.ids) && ids[start] == last.ids[start] {
			start++
		}
		if start > 0 {
			b = append(b, `{"of":`...)
			b = strconv.AppendInt(b, int64(last.seq), 10)
			b = append(b, `,"keep":`...)
			b = strconv.AppendInt(b, int64(start), 10)
			b = append(b, `,"add":`...)
		}
	}
	b = e.identities(b, ids[start:])
	if start > 0 {
		b = append(b, '}')
	}
	return b
}

// identities writes [["msg", inc], ...].
func (e *runEncoder) identities(b []byte, ids []trace.Identity) []byte {
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = appendString(b, nameOf(e.run.Msgs, id.Msg))
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(id.Inc), 10)
		b = append(b, ']')
	}
	return append(b, ']')
}
