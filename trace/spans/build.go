package spans

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ckpt-dev/ckpt/trace/shiviz"
)

// builder gathers spans and builds their execution.
type builder struct {
	spans []span
	byKey map[string]int32
	// count holds what the notes report, by what they say.
	count map[string]int

	ex      *shiviz.Execution
	proc    []int32   // span → process
	parent  []int32   // span → parent span, or -1
	kids    [][]int32 // span → children, by start time
	seen    []bool
	start   []int32   // span → its first event
	pending [][]int32 // call span → response sends awaiting its end
}

// add records a span, or counts why it is skipped. Two spans with one
// id, a client and a server, are the two halves of an RPC (Zipkin's
// shared span, marked or not).
func (b *builder) add(s span) {
	switch {
	case s.id == "":
		b.count["spans skipped, no span id"]++
		return
	case s.start == 0:
		b.count["spans skipped, no start time"]++
		return
	case s.start < 0:
		b.count["spans skipped, starting before 1970"]++
		return
	case s.end < s.start:
		s.end = s.start
		b.count["spans ending before they start (taken as instantaneous)"]++
	}
	if s.service == "" {
		s.service = "unknown-service"
		b.count["spans with no service name (process unknown-service)"]++
	}
	key := ref(s.trace, s.id)
	if old, dup := b.byKey[key]; dup && !s.shared {
		if o := &b.spans[old]; o.kind == "server" && s.kind == "client" && !o.shared {
			o.shared, b.byKey[key+"/shared"] = true, old
			delete(b.byKey, key)
		} else if s.kind == "server" {
			s.shared = true
		}
	}
	if s.shared {
		key += "/shared"
	}
	if _, dup := b.byKey[key]; dup {
		b.count["spans skipped, an id another span has"]++
		return
	}
	b.byKey[key] = int32(len(b.spans))
	b.spans = append(b.spans, s)
	if s.links > 0 {
		b.count["links or extra references ignored"] += s.links
	}
}

// build turns the spans into an execution: processes, one event per
// span start, request and response messages across processes, times
// made causal.
func (b *builder) build() (*shiviz.Execution, error) {
	if len(b.spans) == 0 {
		var why []string
		for k, n := range b.count {
			if strings.HasPrefix(k, "spans skipped") {
				why = append(why, fmt.Sprintf("%s: %d", k, n))
			}
		}
		if slices.Sort(why); len(why) > 0 {
			return nil, fmt.Errorf("no spans to import (%s)", strings.Join(why, "; "))
		}
		return nil, fmt.Errorf("no spans to import")
	}
	n := len(b.spans)
	b.link()
	b.seen, b.start, b.pending = make([]bool, n), make([]int32, n), make([][]int32, n)
	var roots []int32
	for i := range b.spans {
		if b.parent[i] < 0 {
			roots = append(roots, int32(i))
		}
	}
	for _, r := range b.sortByStart(roots) {
		b.visit(r)
	}
	for i := range b.spans {
		if !b.seen[i] {
			b.count["parent cycles broken"]++
			b.parent[i] = -1
			b.visit(int32(i))
		}
	}
	return b.ex, b.finish()
}

// link resolves each span's process — its service, or service@instance
// when the file shows the service on several instances — and parent,
// and lists children.
func (b *builder) link() {
	n := len(b.spans)
	insts := map[string]map[string]bool{}
	for _, s := range b.spans {
		if insts[s.service] == nil {
			insts[s.service] = map[string]bool{}
		}
		if s.instance != "" {
			insts[s.service][s.instance] = true
		}
	}
	procOf := map[string]int32{}
	b.proc, b.parent, b.kids = make([]int32, n), make([]int32, n), make([][]int32, n)
	for i, s := range b.spans {
		name := s.service
		if s.instance != "" && len(insts[s.service]) > 1 {
			name += "@" + s.instance
		}
		if _, ok := procOf[name]; !ok {
			procOf[name] = int32(len(b.ex.Hosts))
			b.ex.Hosts = append(b.ex.Hosts, name)
		}
		b.proc[i] = procOf[name]
	}
	for i := range b.spans {
		if b.parent[i] = b.parentOf(int32(i)); b.parent[i] >= 0 {
			b.kids[b.parent[i]] = append(b.kids[b.parent[i]], int32(i))
		}
	}
	for _, k := range b.kids {
		b.sortByStart(k)
	}
}

// parentOf finds span i's parent. The server half of an RPC is the
// client half's child; a span whose parent id names both halves belongs
// to the server half unless it runs where the client does.
func (b *builder) parentOf(i int32) int32 {
	s := &b.spans[i]
	if c, ok := b.byKey[ref(s.trace, s.id)]; s.shared && ok {
		return c
	}
	if s.parent == "" {
		return -1
	}
	c, hasC := b.byKey[s.parent]
	sh, hasS := b.byKey[s.parent+"/shared"]
	switch {
	case hasS && !(hasC && b.proc[c] == b.proc[i] && b.proc[sh] != b.proc[i]):
		return sh
	case hasC:
		return c
	}
	b.count["spans whose parent is not in the file (each starts a tree)"]++
	return -1
}

func (b *builder) sortByStart(spans []int32) []int32 {
	slices.SortStableFunc(spans, func(x, y int32) int { return cmp.Compare(b.spans[x].start, b.spans[y].start) })
	return spans
}

// finish numbers each process's events by its clock, orders the
// execution and makes its times causal.
func (b *builder) finish() error {
	ex := b.ex
	per := make([][]int32, len(ex.Hosts))
	for i, ev := range ex.Events {
		per[ev.Host] = append(per[ev.Host], int32(i))
	}
	for _, evs := range per {
		slices.SortStableFunc(evs, func(x, y int32) int { return cmp.Compare(ex.Events[x].Time, ex.Events[y].Time) })
		for k, e := range evs {
			ex.Events[e].Own = int32(k + 1)
		}
	}
	ex.Notes = []string{fmt.Sprintf("spans: %d; parent-child edges that cross processes: %d (request messages: %d, response messages: %d)",
		len(b.spans), b.count["requests"], b.count["requests"], b.count["responses"])}
	delete(b.count, "requests")
	delete(b.count, "responses")
	for _, k := range slices.Sorted(maps.Keys(b.count)) {
		ex.Notes = append(ex.Notes, fmt.Sprintf("%s: %d", k, b.count[k]))
	}
	return ex.Deskew()
}
