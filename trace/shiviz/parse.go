// Package shiviz converts between ckpt's formats and the vector-clock logs
// that ShiViz (DistributedClocks/shiviz) visualises and GoVector writes.
//
// A log is parsed with a regular expression whose named groups host, clock
// and event describe one event; message edges are inferred from the clocks
// exactly as ShiViz infers them, events are ordered causally, and the
// result becomes an execution trace (ckpt/trace@1) to which checkpoint
// ticks, flushes and failures can be added for recovery analysis. In the
// other direction a run (ckpt/run@1) is written as a ShiViz log.
package shiviz

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-json"

	"github.com/ckpt-dev/ckpt/trace"
)

// DefaultRegex is ShiViz's default parser expression: an event line
// followed by a "host {clock}" line.
const DefaultRegex = `(?<event>.*)\n(?<host>\S*) (?<clock>{.*})`

// ParseOptions say how to cut a log into events and executions.
type ParseOptions struct {
	// Regex matches one event; it must have the named groups host, clock
	// and event. Empty means: the regex on the log's first line if that
	// line is one (as Export writes it), else DefaultRegex.
	Regex string
	// Delimiter, if not empty, separates executions; its optional named
	// group "trace" labels the execution that follows it.
	Delimiter string
}

// Field is a named group of the regex other than host, clock and event.
type Field struct {
	Name, Value string
}

// Entry is one entry of a vector clock: host index and value.
type Entry struct {
	Host  int32
	Value int32
}

// Event is one matched log event.
type Event struct {
	// Host indexes Execution.Hosts.
	Host int32
	// Own is the event's own clock value: it is the Own-th event of Host.
	Own int32
	// Clock holds the non-zero entries of the vector clock in the order
	// written.
	Clock []Entry
	Text  string
	// Fields are the other named groups, in regex order.
	Fields []Field
	// Line is the 1-based line of the file where the match starts;
	// ClockLine the line of the clock group, which error messages name.
	Line, ClockLine int
	// Parents are the events (indexes into Execution.Events) whose
	// messages this event receives, in causal order.
	Parents []int32
	// Children are the events that receive a message sent by this event,
	// in causal order.
	Children []int32
}

// Execution is one execution of a log: the whole log, or the text between
// two delimiters.
type Execution struct {
	// Label is the delimiter's "trace" group ("" without a delimiter).
	Label string
	// Hosts are the host names in order of first appearance.
	Hosts []string
	// Events are in file order.
	Events []Event
	// Order lists the events (indexes into Events) in a causal order: a
	// topological order of happened-before that keeps file order where
	// causality leaves a choice.
	Order []int32
	// Messages is the number of inferred message edges.
	Messages int
	// Skipped counts the non-blank lines no match covered.
	Skipped int
}

// Log is a parsed log file.
type Log struct {
	// Name is the file name used in messages.
	Name string
	// Regex is the expression the events were matched with.
	Regex      string
	Executions []*Execution
}

// Skipped returns the number of non-blank lines that matched no event in
// any execution.
func (l *Log) Skipped() int {
	n := 0
	for _, e := range l.Executions {
		n += e.Skipped
	}
	return n
}

// maxLogSize bounds what Parse reads: ShiViz itself holds a log in a
// browser tab, and the largest real log is about a megabyte.
const maxLogSize = 1 << 30

// CompileRegex compiles a ShiViz expression for Go. ShiViz applies it in
// JavaScript's multi-line mode, so ^ and $ match at line breaks; Go
// accepts the (?<name>...) group syntax natively since Go 1.22.
func CompileRegex(expr string) (*regexp.Regexp, error) {
	re, err := regexp.Compile("(?m)" + expr)
	if err != nil {
		return nil, fmt.Errorf("bad regular expression %q: %v", expr, err)
	}
	return re, nil
}

// Parse reads a whole log and infers each execution's message edges and
// causal order. Any problem is a *trace.InputError naming name and the
// line. A regex or delimiter that does not compile, or lacks the host,
// clock or event group, is an error too.
func Parse(name string, r io.Reader, opts ParseOptions) (*Log, error) {
	text, err := readLog(name, r)
	if err != nil {
		return nil, err
	}
	p := &parser{name: name}
	expr, firstLine := chooseRegex(text, opts.Regex)
	re, err := CompileRegex(expr)
	if err != nil {
		return nil, &trace.InputError{File: name, Event: -1, Msg: err.Error()}
	}
	if err := p.setRegex(re); err != nil {
		return nil, err
	}
	log := &Log{Name: name, Regex: expr}

	// ShiViz trims the whole log before parsing; keep the offsets so that
	// line numbers stay those of the file.
	end := len(strings.TrimRight(text, " \t\n\r\f\v"))
	start := firstLine
	for start < end && isSpace(text[start]) {
		start++
	}
	if start >= end {
		return nil, &trace.InputError{File: name, Event: -1, Msg: "empty log"}
	}
	chunks, err := splitExecutions(name, text, start, end, opts.Delimiter)
	if err != nil {
		return nil, err
	}
	if log.Executions, err = p.executions(text, chunks); err != nil {
		return nil, err
	}
	if len(log.Executions) == 0 {
		return nil, &trace.InputError{File: name, Event: -1, Msg: "no execution with any text"}
	}
	return log, nil
}

// readLog reads the whole log, bounded by maxLogSize, with Windows line
// endings made Unix ones.
func readLog(name string, r io.Reader) (string, error) {
	// A strings.Builder holds the log once; reading into a []byte and
	// converting would hold it twice.
	var sb strings.Builder
	if _, err := io.Copy(&sb, io.LimitReader(r, maxLogSize+1)); err != nil {
		return "", &trace.InputError{File: name, Event: -1, Msg: err.Error()}
	}
	if sb.Len() > maxLogSize {
		return "", &trace.InputError{File: name, Event: -1, Msg: "log larger than 1 GiB"}
	}
	text := sb.String()
	// Windows line endings would leave \r in every captured group and
	// defeat $ in multi-line mode.
	if strings.Contains(text, "\r\n") {
		text = strings.ReplaceAll(text, "\r\n", "\n")
	}
	return text, nil
}

// chooseRegex picks the expression to match events with when none is
// given: the log's first line if Export wrote it, else ShiViz's default.
// firstLine is the length of that line (with its newline) to skip.
func chooseRegex(text, expr string) (_ string, firstLine int) {
	if expr != "" {
		return expr, 0
	}
	if first, _, ok := strings.Cut(text, "\n"); ok && looksLikeRegex(first) {
		return first, len(first) + 1
	}
	return DefaultRegex, 0
}

// chunk is the text of one execution, text[from:to], and its label.
type chunk struct {
	label string
	from  int
	to    int
}

// splitExecutions cuts text[start:end] at the delimiter's matches, each
// labelling the execution that follows it; without a delimiter it is one.
func splitExecutions(name, text string, start, end int, delimiter string) ([]chunk, error) {
	if delimiter == "" {
		return []chunk{{"", start, end}}, nil
	}
	dre, err := CompileRegex(delimiter)
	if err != nil {
		return nil, &trace.InputError{File: name, Event: -1, Msg: "delimiter: " + err.Error()}
	}
	var chunks []chunk
	ti := dre.SubexpIndex("trace")
	label, from := "", start
	for _, m := range dre.FindAllStringSubmatchIndex(text[start:end], -1) {
		chunks = append(chunks, chunk{label, from, start + m[0]})
		label = ""
		if ti > 0 && m[2*ti] >= 0 {
			label = text[start+m[2*ti] : start+m[2*ti+1]]
		}
		from = start + m[1]
	}
	return append(chunks, chunk{label, from, end}), nil
}

// executions parses every chunk that has text, keeping file line numbers
// and rejecting duplicate labels, which would name two outputs alike.
func (p *parser) executions(text string, chunks []chunk) ([]*Execution, error) {
	var exs []*Execution
	labels := map[string]bool{}
	line := 1
	pos := 0
	for _, c := range chunks {
		if strings.TrimSpace(text[c.from:c.to]) == "" {
			continue
		}
		line += strings.Count(text[pos:c.from], "\n")
		pos = c.from
		if labels[c.label] {
			return nil, &trace.InputError{File: p.name, Event: -1, Line: line,
				Msg: fmt.Sprintf("two executions are labelled %q; execution labels must be unique", c.label)}
		}
		labels[c.label] = true
		ex, err := p.execution(text[c.from:c.to], line, c.label)
		if err != nil {
			return nil, err
		}
		exs = append(exs, ex)
	}
	return exs, nil
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// looksLikeRegex recognises a first line that is a parser expression (as
// Export writes it) rather than log text.
func looksLikeRegex(line string) bool {
	for _, g := range []string{"host", "clock", "event"} {
		if !strings.Contains(line, "(?<"+g+">") && !strings.Contains(line, "(?P<"+g+">") {
			return false
		}
	}
	return true
}

type parser struct {
	name                  string
	re                    *regexp.Regexp
	hostG, clockG, eventG int
	fieldGroups           []int
	fieldNames            []string
	scratch               []int32
	touched               []int32
}

func (p *parser) setRegex(re *regexp.Regexp) error {
	p.re = re
	p.hostG, p.clockG, p.eventG = re.SubexpIndex("host"), re.SubexpIndex("clock"), re.SubexpIndex("event")
	var missing []string
	for _, g := range []struct {
		name string
		i    int
	}{{"host", p.hostG}, {"clock", p.clockG}, {"event", p.eventG}} {
		if g.i < 0 {
			missing = append(missing, g.name)
		}
	}
	if len(missing) > 0 {
		return &trace.InputError{File: p.name, Event: -1,
			Msg: fmt.Sprintf("the regular expression %q lacks the named group(s) %s (it needs host, clock and event)", strings.TrimPrefix(re.String(), "(?m)"), strings.Join(missing, ", "))}
	}
	seen := map[string]bool{}
	for _, n := range re.SubexpNames() {
		if n != "" && seen[n] {
			return &trace.InputError{File: p.name, Event: -1,
				Msg: fmt.Sprintf("the regular expression has several groups named %q", n)}
		}
		seen[n] = true
	}
	for i, n := range re.SubexpNames() {
		if n != "" && i != p.hostG && i != p.clockG && i != p.eventG {
			p.fieldGroups = append(p.fieldGroups, i)
			p.fieldNames = append(p.fieldNames, n)
		}
	}
	return nil
}

func (p *parser) errf(line int, format string, args ...any) error {
	return &trace.InputError{File: p.name, Event: -1, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func group(text string, m []int, g int) string {
	if m[2*g] < 0 {
		return ""
	}
	return text[m[2*g]:m[2*g+1]]
}

// rawClock is a clock as written, before host names are resolved.
type rawClock struct {
	keys   []string
	values []int32
}

// execution parses one execution's text, whose first line is line
// firstLine of the file: events, clocks, message edges and causal order.
func (p *parser) execution(text string, firstLine int, label string) (*Execution, error) {
	ex := &Execution{Label: label}
	matches := p.re.FindAllStringSubmatchIndex(text, -1)
	if len(matches) == 0 {
		what := "the log"
		if label != "" {
			what = fmt.Sprintf("execution %q", label)
		}
		return nil, p.errf(firstLine, "the regular expression %q matches no event in %s", strings.TrimPrefix(p.re.String(), "(?m)"), what)
	}
	hostIdx := map[string]int32{}
	raws, err := p.matchEvents(ex, text, matches, firstLine, hostIdx)
	if err != nil {
		return nil, err
	}
	if err := p.resolveClocks(ex, raws, hostIdx); err != nil {
		return nil, err
	}
	perHost, err := p.hostEvents(ex)
	if err != nil {
		return nil, err
	}
	if err := p.inferEdges(ex, perHost); err != nil {
		return nil, err
	}
	if err := p.order(ex, perHost); err != nil {
		return nil, err
	}
	if err := p.verify(ex, perHost); err != nil {
		return nil, err
	}
	return ex, nil
}

// matchEvents fills ex.Events and ex.Hosts from the regex matches and
// counts skipped lines; clocks stay raw until every host is known.
func (p *parser) matchEvents(ex *Execution, text string, matches [][]int, firstLine int, hostIdx map[string]int32) ([]rawClock, error) {
	raws := make([]rawClock, len(matches))
	ex.Events = make([]Event, len(matches))
	line, pos := firstLine, 0
	cov := coverage{last: -1}
	for i, m := range matches {
		line += strings.Count(text[pos:m[0]], "\n")
		pos = m[0]
		rc, err := p.matchEvent(ex, &ex.Events[i], text, m, line, hostIdx)
		if err != nil {
			return nil, err
		}
		raws[i] = rc
		cov.add(line, text[m[0]:m[1]])
	}
	ex.Skipped = countNonBlankLines(text) - cov.covered
	if ex.Skipped < 0 {
		ex.Skipped = 0
	}
	return raws, nil
}

// matchEvent reads one match, starting at line, into ev, adding its host
// to ex.Hosts on first sight; it returns the clock as written.
func (p *parser) matchEvent(ex *Execution, ev *Event, text string, m []int, line int, hostIdx map[string]int32) (rawClock, error) {
	ev.Line = line
	host := group(text, m, p.hostG)
	if host == "" {
		return rawClock{}, p.errf(line, "the host group matched an empty host name")
	}
	if !utf8.ValidString(host) {
		return rawClock{}, p.errf(line, "the host name %q is not valid UTF-8", host)
	}
	h, ok := hostIdx[host]
	if !ok {
		h = int32(len(ex.Hosts))
		hostIdx[host] = h
		ex.Hosts = append(ex.Hosts, host)
	}
	ev.Host = h
	ev.Text = group(text, m, p.eventG)
	for j, g := range p.fieldGroups {
		ev.Fields = append(ev.Fields, Field{p.fieldNames[j], group(text, m, g)})
	}
	ev.ClockLine = line
	if m[2*p.clockG] >= 0 {
		ev.ClockLine = line + strings.Count(text[m[0]:m[2*p.clockG]], "\n")
	}
	rc, err := parseClock(group(text, m, p.clockG))
	if err != nil {
		return rawClock{}, p.errf(ev.ClockLine, "cannot parse the vector clock %s of host %q: %v", quoteShort(group(text, m, p.clockG)), host, err)
	}
	return rc, nil
}

// coverage counts the lines that matches cover, once each even where
// matches share a line, for the skipped-lines count.
type coverage struct {
	covered int
	// last is the last line covered so far (-1: none).
	last int
}

// add counts the lines of match, which starts at line.
func (c *coverage) add(line int, match string) {
	nl := strings.Count(match, "\n")
	span := nl + 1
	if line <= c.last {
		span -= c.last - line + 1
	}
	if span > 0 {
		c.covered += span
		c.last = line + nl
	}
}

// resolveClocks turns the raw clocks into host-indexed entries now that
// every host is known, and sets each event's own clock value.
func (p *parser) resolveClocks(ex *Execution, raws []rawClock, hostIdx map[string]int32) error {
	for i := range ex.Events {
		ev := &ex.Events[i]
		rc := raws[i]
		ev.Own = 0
		own := false
		for k, key := range rc.keys {
			h, ok := hostIdx[key]
			if !ok && rc.values[k] == 0 {
				continue // ShiViz drops zero entries before it looks at hosts
			}
			if !ok {
				return p.errf(ev.ClockLine, "the vector clock of host %q has an entry for unknown host %q: no event of %q is in the log", ex.Hosts[ev.Host], key, key)
			}
			if h == ev.Host {
				own = true
				ev.Own = rc.values[k]
			}
			if rc.values[k] != 0 {
				ev.Clock = append(ev.Clock, Entry{h, rc.values[k]})
			}
		}
		if !own {
			return p.errf(ev.ClockLine, "host %q is missing from its own vector clock %s", ex.Hosts[ev.Host], clockString(ex.Hosts, ev.Clock))
		}
	}
	return nil
}

// hostEvents lists each host's events sorted by their own clock, and
// checks that they count 1, 2, 3, … as the vector clock algorithm does.
func (p *parser) hostEvents(ex *Execution) ([][]int32, error) {
	perHost := make([][]int32, len(ex.Hosts))
	for i := range ex.Events {
		h := ex.Events[i].Host
		perHost[h] = append(perHost[h], int32(i))
	}
	for h, evs := range perHost {
		sort.SliceStable(evs, func(a, b int) bool { return ex.Events[evs[a]].Own < ex.Events[evs[b]].Own })
		for k, e := range evs {
			ev := &ex.Events[e]
			if int(ev.Own) == k+1 {
				continue
			}
			if k == 0 {
				return nil, p.errf(ev.ClockLine, "clock values of host %q must start at 1, but its first event has %q:%d (expected %q:1)", ex.Hosts[h], ex.Hosts[h], ev.Own, ex.Hosts[h])
			}
			prev := &ex.Events[evs[k-1]]
			if prev.Own == ev.Own {
				return nil, p.errf(ev.ClockLine, "host %q has two events with clock value %d (lines %d and %d); each event must increase it by 1", ex.Hosts[h], ev.Own, min(prev.ClockLine, ev.ClockLine), max(prev.ClockLine, ev.ClockLine))
			}
			return nil, p.errf(ev.ClockLine, "the clock of host %q goes from %d (line %d) to %d; expected %d: clock values must increase by 1 per event", ex.Hosts[h], prev.Own, prev.ClockLine, ev.Own, prev.Own+1)
		}
	}
	return perHost, nil
}

func countNonBlankLines(s string) int {
	n := 0
	for len(s) > 0 {
		line, rest, _ := strings.Cut(s, "\n")
		if strings.TrimSpace(line) != "" {
			n++
		}
		s = rest
	}
	return n
}

// inferEdges finds each event's parents the way ShiViz's ModelGraph does:
// walking a host's events in clock order, an entry for another host that
// exceeds every value the host has seen names a candidate sender (the
// event of that host with that value); candidates another candidate
// already knows about are dropped, since their influence arrived through
// it. What remains are the messages this event receives.
func (p *parser) inferEdges(ex *Execution, perHost [][]int32) error {
	nh := len(ex.Hosts)
	seen := make([]int32, nh)
	cand := make([]int32, nh) // candidate value per host, 0 = none
	implied := make([]bool, nh)
	var candHosts []int32
	var seenHosts []int32
	for h, evs := range perHost {
		// Reset only what the previous host set: clearing all of seen
		// would cost hosts² on logs with many short-lived hosts.
		for _, x := range seenHosts {
			seen[x] = 0
		}
		seenHosts = seenHosts[:0]
		for _, e := range evs {
			ev := &ex.Events[e]
			candHosts = candHosts[:0]
			for _, en := range ev.Clock {
				if int(en.Host) == h || en.Value <= seen[en.Host] {
					continue
				}
				if seen[en.Host] == 0 {
					seenHosts = append(seenHosts, en.Host)
				}
				seen[en.Host] = en.Value
				if int(en.Value) > len(perHost[en.Host]) {
					return p.errf(ex.Events[e].ClockLine, "the vector clock of host %q has %q:%d, but host %q has only %d event(s)", ex.Hosts[h], ex.Hosts[en.Host], en.Value, ex.Hosts[en.Host], len(perHost[en.Host]))
				}
				cand[en.Host] = en.Value
				candHosts = append(candHosts, en.Host)
			}
			for _, c := range candHosts {
				src := &ex.Events[perHost[c][cand[c]-1]]
				for _, en := range src.Clock {
					if en.Host != src.Host && cand[en.Host] == en.Value {
						implied[en.Host] = true
					}
				}
			}
			for _, c := range candHosts {
				if !implied[c] {
					src := perHost[c][cand[c]-1]
					ev.Parents = append(ev.Parents, src)
					ex.Events[src].Children = append(ex.Events[src].Children, e)
					ex.Messages++
				}
				cand[c], implied[c] = 0, false
			}
		}
	}
	return nil
}

// order computes Execution.Order with Kahn's algorithm, always taking the
// ready event that comes first in the file, and reports a cycle of
// happened-before if the clocks admit no order.
func (p *parser) order(ex *Execution, perHost [][]int32) error {
	indeg := kahn(ex, perHost)
	if len(ex.Order) == len(ex.Events) {
		sortEdges(ex)
		return nil
	}
	return p.cycleError(ex, cyclePath(ex, perHost, indeg))
}

// kahn sets ex.Order to as many events as happened-before lets it take
// and returns the in-degrees left, which are non-zero only on a cycle.
func kahn(ex *Execution, perHost [][]int32) []int32 {
	n := len(ex.Events)
	indeg := make([]int32, n)
	next := make([]int32, n) // next event of the same host, or -1
	for i := range next {
		next[i] = -1
	}
	for _, evs := range perHost {
		for k := 1; k < len(evs); k++ {
			next[evs[k-1]] = evs[k]
			indeg[evs[k]]++
		}
	}
	for i := range ex.Events {
		indeg[i] += int32(len(ex.Events[i].Parents))
	}
	h := &minHeap{}
	for i := range indeg {
		if indeg[i] == 0 {
			h.push(int32(i))
		}
	}
	ex.Order = make([]int32, 0, n)
	for h.len() > 0 {
		e := h.pop()
		ex.Order = append(ex.Order, e)
		if nx := next[e]; nx >= 0 {
			if indeg[nx]--; indeg[nx] == 0 {
				h.push(nx)
			}
		}
		for _, c := range ex.Events[e].Children {
			if indeg[c]--; indeg[c] == 0 {
				h.push(c)
			}
		}
	}
	return indeg
}

// sortEdges puts every event's parents and children in causal order, as
// Event documents, so that ops come out in that order.
func sortEdges(ex *Execution) {
	pos := make([]int32, len(ex.Events))
	for k, e := range ex.Order {
		pos[e] = int32(k)
	}
	for i := range ex.Events {
		ev := &ex.Events[i]
		sort.Slice(ev.Parents, func(a, b int) bool { return pos[ev.Parents[a]] < pos[ev.Parents[b]] })
		sort.Slice(ev.Children, func(a, b int) bool { return pos[ev.Children[a]] < pos[ev.Children[b]] })
	}
}

// cyclePath finds a cycle among the events Kahn's algorithm left (those
// with indeg > 0), backwards in time, to show the user.
func cyclePath(ex *Execution, perHost [][]int32, indeg []int32) []int32 {
	// Every event left has a predecessor that is left too: walk
	// predecessors from the first one until an event repeats.
	prev := make([]int32, len(ex.Events))
	for i := range prev {
		prev[i] = -1
	}
	for _, evs := range perHost {
		for k := 1; k < len(evs); k++ {
			prev[evs[k]] = evs[k-1]
		}
	}
	start := int32(-1)
	for i := range indeg {
		if indeg[i] > 0 {
			start = int32(i)
			break
		}
	}
	visited := map[int32]int{}
	var path []int32
	e := start
	for {
		if k, ok := visited[e]; ok {
			return path[k:]
		}
		visited[e] = len(path)
		path = append(path, e)
		if q := prev[e]; q >= 0 && indeg[q] > 0 {
			e = q
			continue
		}
		for _, q := range ex.Events[e].Parents {
			if indeg[q] > 0 {
				e = q
				break
			}
		}
	}
}

// cycleError reports the cycle path (which runs backwards in time)
// forwards, naming each event by host, clock value and line.
func (p *parser) cycleError(ex *Execution, path []int32) error {
	var b strings.Builder
	for k := len(path) - 1; k >= 0; k-- {
		ev := &ex.Events[path[k]]
		fmt.Fprintf(&b, "%s:%d (line %d) -> ", ex.Hosts[ev.Host], ev.Own, ev.ClockLine)
	}
	first := &ex.Events[path[len(path)-1]]
	fmt.Fprintf(&b, "%s:%d", ex.Hosts[first.Host], first.Own)
	return p.errf(first.ClockLine, "no order of events can explain these vector clocks: they make a cycle of happened-before %s", b.String())
}

// verify checks, in causal order, that every clock is exactly what the
// vector clock algorithm gives: the merge of the host's previous clock and
// the clocks of the messages received, with the own entry counted. It
// works on the sparse clocks, so its cost is linear in the log's size.
func (p *parser) verify(ex *Execution, perHost [][]int32) error {
	nh := len(ex.Hosts)
	if len(p.scratch) < nh {
		p.scratch = make([]int32, nh)
	}
	exp := p.scratch[:nh]
	prevOf := func(e int32) int32 {
		ev := &ex.Events[e]
		if ev.Own <= 1 {
			return -1
		}
		return perHost[ev.Host][ev.Own-2]
	}
	for _, e := range ex.Order {
		ev := &ex.Events[e]
		touched := p.touched[:0]
		merge := func(c []Entry) {
			for _, en := range c {
				if exp[en.Host] == 0 {
					touched = append(touched, en.Host)
				}
				if en.Value > exp[en.Host] {
					exp[en.Host] = en.Value
				}
			}
		}
		if q := prevOf(e); q >= 0 {
			merge(ex.Events[q].Clock)
		}
		for _, q := range ev.Parents {
			merge(ex.Events[q].Clock)
		}
		if exp[ev.Host] == 0 {
			touched = append(touched, ev.Host)
		}
		exp[ev.Host] = ev.Own
		ok := len(touched) == len(ev.Clock)
		if ok {
			for _, en := range ev.Clock {
				if exp[en.Host] != en.Value {
					ok = false
					break
				}
			}
		}
		var err error
		if !ok {
			// The expected clock lists the hosts in the order the event's
			// own clock does, then the missing ones in host order, so the
			// two read side by side.
			want := make([]Entry, 0, len(touched))
			for _, en := range ev.Clock {
				if exp[en.Host] > 0 {
					want = append(want, Entry{en.Host, exp[en.Host]})
					exp[en.Host] = -exp[en.Host]
				}
			}
			sort.Slice(touched, func(a, b int) bool { return touched[a] < touched[b] })
			for _, h := range touched {
				if exp[h] > 0 {
					want = append(want, Entry{h, exp[h]})
				}
			}
			err = p.errf(ex.Events[e].ClockLine, "host %q has the impermissible vector clock %s; from its previous event and the messages it receives it should be %s", ex.Hosts[ev.Host], clockString(ex.Hosts, ev.Clock), clockString(ex.Hosts, want))
		}
		for _, h := range touched {
			exp[h] = 0
		}
		p.touched = touched
		if err != nil {
			return err
		}
	}
	return nil
}

func clockString(hosts []string, c []Entry) string {
	var b []byte
	b = append(b, '{')
	for k, en := range c {
		if k > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendQuote(b, hosts[en.Host])
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(en.Value), 10)
	}
	return string(append(b, '}'))
}

func quoteShort(s string) string {
	const max = 80
	if len(s) > max {
		s = s[:max] + "…"
	}
	return strconv.Quote(s)
}

// parseClock reads a JSON object of host → non-negative integer. A clock
// written inside a quoted string with escaped quotes ({\"n1\":1}, as the
// TLA+ ShiViz module prints it) is unescaped first.
func parseClock(s string) (rawClock, error) {
	rc, err := parseClockJSON(s)
	if err != nil && strings.Contains(s, `\"`) {
		if unq, uerr := strconv.Unquote(`"` + s + `"`); uerr == nil {
			if rc2, err2 := parseClockJSON(unq); err2 == nil {
				return rc2, nil
			}
		}
	}
	return rc, err
}

func parseClockJSON(s string) (rawClock, error) {
	var rc rawClock
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return rc, fmt.Errorf("not a JSON object: %v", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return rc, fmt.Errorf("not a JSON object")
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return rc, fmt.Errorf("bad JSON: %v", err)
		}
		key, ok := tok.(string)
		if !ok {
			return rc, fmt.Errorf("bad JSON key")
		}
		tok, err = dec.Token()
		if err != nil {
			return rc, fmt.Errorf("bad JSON: %v", err)
		}
		num, ok := tok.(json.Number)
		if !ok {
			return rc, fmt.Errorf("the entry for %q is not a number", key)
		}
		v, err := strconv.ParseInt(string(num), 10, 32)
		if err != nil || v < 0 {
			return rc, fmt.Errorf("the entry %q:%s is not a non-negative integer", key, num)
		}
		if seen[key] {
			return rc, fmt.Errorf("host %q appears twice", key)
		}
		seen[key] = true
		rc.keys = append(rc.keys, key)
		rc.values = append(rc.values, int32(v))
	}
	if _, err := dec.Token(); err != nil {
		return rc, fmt.Errorf("bad JSON: %v", err)
	}
	if dec.More() {
		return rc, fmt.Errorf("text after the JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return rc, fmt.Errorf("text after the JSON object")
	}
	return rc, nil
}

// minHeap is a binary heap of event indexes: the smallest (earliest in
// the file) comes out first, which makes the causal order deterministic.
type minHeap struct{ a []int32 }

func (h *minHeap) len() int { return len(h.a) }

func (h *minHeap) push(x int32) {
	h.a = append(h.a, x)
	i := len(h.a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if h.a[p] <= h.a[i] {
			break
		}
		h.a[p], h.a[i] = h.a[i], h.a[p]
		i = p
	}
}

func (h *minHeap) pop() int32 {
	top := h.a[0]
	last := len(h.a) - 1
	h.a[0] = h.a[last]
	h.a = h.a[:last]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < last && h.a[l] < h.a[m] {
			m = l
		}
		if r < last && h.a[r] < h.a[m] {
			m = r
		}
		if m == i {
			break
		}
		h.a[i], h.a[m] = h.a[m], h.a[i]
		i = m
	}
	return top
}
