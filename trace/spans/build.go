package spans

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/shiviz"
)

// builder gathers spans and builds their execution.
type builder struct {
	spans []span
	byKey map[string]int32
	// counts of what the notes report, by what they say
	count map[string]int

	ex      *shiviz.Execution
	procOf  map[string]int32
	proc    []int32   // span → process
	parent  []int32   // span → parent span, or -1
	kids    [][]int32 // span → children, by start time
	seen    []bool
	start   []int32   // span → its first event
	pending [][]int32 // call span → response sends awaiting its end
	local   []int64   // event → time by its process's clock
}

func newBuilder() *builder {
	return &builder{byKey: map[string]int32{}, count: map[string]int{}, procOf: map[string]int32{}, ex: &shiviz.Execution{}}
}

// add records a span, or counts why it is skipped. Two spans with one
// id, a client and a server, are the two halves of an RPC (Zipkin's
// shared span, marked or not).
func (b *builder) add(s span) {
	switch {
	case s.id == "":
		b.count["skipped: no span id"]++
		return
	case s.start <= 0:
		b.count["skipped: no start time"]++
		return
	case s.end < s.start:
		s.end = s.start
		b.count["end before they start: taken as instantaneous"]++
	}
	if s.service == "" {
		s.service = "unknown-service"
		b.count["have no service name: process unknown-service"]++
	}
	key := ref(s.trace, s.id)
	if old, dup := b.byKey[key]; dup && !s.shared {
		if o := &b.spans[old]; o.kind == server && s.kind == client && !o.shared {
			o.shared, b.byKey[key+"/shared"] = true, old
			delete(b.byKey, key)
		} else if s.kind == server {
			s.shared = true
		}
	}
	if s.shared {
		key += "/shared"
	}
	if _, dup := b.byKey[key]; dup {
		b.count["skipped: another span has the same id"]++
		return
	}
	b.byKey[key] = int32(len(b.spans))
	b.spans = append(b.spans, s)
	if s.links > 0 {
		b.count["link(s) or extra reference(s) ignored"] += s.links
	}
}

// build turns the spans into an execution: processes, one event per
// span start, request and response messages across processes, times
// made causal.
func (b *builder) build() (*shiviz.Execution, error) {
	if len(b.spans) == 0 {
		return nil, fmt.Errorf("no spans to import%s", b.skipNote())
	}
	b.link()
	n := len(b.spans)
	b.seen, b.start, b.pending = make([]bool, n), make([]int32, n), make([][]int32, n)
	roots := make([]int32, 0)
	for i := range b.spans {
		if b.parent[i] < 0 {
			roots = append(roots, int32(i))
		}
	}
	b.sortByStart(roots)
	for _, r := range roots {
		b.visit(r)
	}
	for i := range b.spans {
		if !b.seen[i] {
			b.count["parent cycle(s) broken"]++
			b.parent[i] = -1
			b.visit(int32(i))
		}
	}
	if err := b.finish(); err != nil {
		return nil, err
	}
	return b.ex, nil
}

// link resolves each span's process and parent, and lists children.
func (b *builder) link() {
	names := processNames(b.spans)
	b.proc, b.parent, b.kids = make([]int32, len(b.spans)), make([]int32, len(b.spans)), make([][]int32, len(b.spans))
	for i := range b.spans {
		b.proc[i] = b.process(names[i])
	}
	for i := range b.spans {
		b.parent[i] = b.parentOf(int32(i))
		if p := b.parent[i]; p >= 0 {
			b.kids[p] = append(b.kids[p], int32(i))
		}
	}
	for i := range b.kids {
		b.sortByStart(b.kids[i])
	}
}

// processNames names each span's process: its service, or service@
// instance when the file shows the service on several instances.
func processNames(spans []span) []string {
	insts := map[string]map[string]bool{}
	for _, s := range spans {
		if insts[s.service] == nil {
			insts[s.service] = map[string]bool{}
		}
		if s.instance != "" {
			insts[s.service][s.instance] = true
		}
	}
	names := make([]string, len(spans))
	for i, s := range spans {
		names[i] = s.service
		if s.instance != "" && len(insts[s.service]) > 1 {
			names[i] += "@" + s.instance
		}
	}
	return names
}

// process returns the index of the named process, adding it.
func (b *builder) process(name string) int32 {
	p, ok := b.procOf[name]
	if !ok {
		p = int32(len(b.ex.Hosts))
		b.procOf[name] = p
		b.ex.Hosts = append(b.ex.Hosts, name)
	}
	return p
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
	b.count["have a parent that is not in the file: each starts a tree"]++
	return -1
}

func (b *builder) sortByStart(spans []int32) {
	slices.SortStableFunc(spans, func(x, y int32) int { return cmp.Compare(b.spans[x].start, b.spans[y].start) })
}

// finish numbers each process's events by its clock, makes the times
// relative to the earliest, orders the execution and makes its times
// causal.
func (b *builder) finish() error {
	ex := b.ex
	per := make([][]int32, len(ex.Hosts))
	for i := range ex.Events {
		per[ex.Events[i].Host] = append(per[ex.Events[i].Host], int32(i))
	}
	origin := slices.Min(b.local)
	for _, evs := range per {
		slices.SortStableFunc(evs, func(x, y int32) int { return cmp.Compare(b.local[x], b.local[y]) })
		for k, e := range evs {
			ex.Events[e].Own = int32(k + 1)
			if ex.Events[e].Time = trace.Time(b.local[e] - origin); ex.Events[e].Time > trace.MaxTime {
				return fmt.Errorf("the spans last more than %s", trace.MaxTimeText)
			}
		}
	}
	if err := ex.Complete(); err != nil {
		return err
	}
	ex.Notes = b.notes()
	return ex.Deskew()
}
