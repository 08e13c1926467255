package spans

import (
	"slices"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/shiviz"
)

// visit makes span i's events, then its children's, depth first, so
// that every message goes from an event made earlier to one made later.
// A span starts with an event; a child on another process receives the
// request its parent sends — from the start of a client or producer
// span, else from an event placed within the parent — and, unless the
// call is asynchronous, answers it from an event at its end, which the
// parent receives at its end (client) or within it.
func (b *builder) visit(i int32) {
	b.seen[i] = true
	s := &b.spans[i]
	p := b.parent[i]
	remote := p >= 0 && b.proc[p] != b.proc[i]
	var req int32
	if remote {
		req = b.start[p]
		if !b.calls(p) {
			req = b.event(p, b.within(p, s.start), "call "+s.name)
		}
	}
	b.start[i] = b.event(i, s.start, s.name)
	if remote {
		b.message(req, b.start[i], "requests")
	} else if p >= 0 {
		b.count["spans within their parent's process (internal events)"]++
	}
	for _, c := range b.kids[i] {
		if !b.seen[c] {
			b.visit(c)
		}
	}
	answers := remote && !s.follows && s.kind != "consumer" && b.spans[p].kind != "producer"
	if len(b.pending[i]) == 0 && !answers {
		if b.calls(i) && !slices.ContainsFunc(b.kids[i], func(c int32) bool { return b.proc[c] != b.proc[i] }) {
			b.count["client or producer spans calling a service not in the file (internal events)"]++
		}
		return
	}
	// One event ends the span: it receives the responses to its calls,
	// then sends its own.
	end := b.event(i, s.end, s.name+" (end)")
	for _, snd := range b.pending[i] {
		b.message(snd, end, "responses")
	}
	switch {
	case !answers:
	case b.calls(p):
		b.pending[p] = append(b.pending[p], end)
	default:
		b.message(end, b.event(p, b.within(p, s.end), s.name+" returned"), "responses")
	}
}

// calls reports whether span i is the caller's side of a call.
func (b *builder) calls(i int32) bool {
	return b.spans[i].kind == "client" || b.spans[i].kind == "producer"
}

// within places a time of another process's clock inside span p, where
// p's process must have sent or received a message it has no span for.
func (b *builder) within(p int32, t int64) int64 {
	return min(max(t, b.spans[p].start), b.spans[p].end)
}

// event adds an event of span i's process at time t of its clock, for
// now nanoseconds since the epoch.
func (b *builder) event(i int32, t int64, text string) int32 {
	s := &b.spans[i]
	fields := []shiviz.Field{{Name: "span", Value: s.id}}
	if s.kind != "" {
		fields = append(fields, shiviz.Field{Name: "kind", Value: s.kind})
	}
	b.ex.Events = append(b.ex.Events, shiviz.Event{Host: b.proc[i], Text: text, Fields: fields, Time: trace.Time(t)})
	return int32(len(b.ex.Events) - 1)
}

// message adds a message from event send to event recv.
func (b *builder) message(send, recv int32, what string) {
	evs := b.ex.Events
	evs[send].Children = append(evs[send].Children, recv)
	evs[recv].Parents = append(evs[recv].Parents, send)
	b.count[what]++
}
