package shiviz

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ckpt-dev/ckpt/trace"
)

// DefaultStep is the time between two consecutive ops of an imported trace
// when times come from positions: one second, so that the default
// restart_delay (1 s) keeps a failed process down for one step.
const DefaultStep = trace.Second

// FailPoint names a failure injected after the N-th event (1-based) of a
// host.
type FailPoint struct {
	Host string
	N    int
}

// ParseFailPoint reads HOST:N. The colon is the last one, so host names
// that contain colons (localhost:24468) work.
func ParseFailPoint(s string) (FailPoint, error) {
	i := strings.LastIndexByte(s, ':')
	if i <= 0 {
		return FailPoint{}, fmt.Errorf("--fail-at %q: want HOST:N", s)
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil || n < 1 {
		return FailPoint{}, fmt.Errorf("--fail-at %q: N must be an integer >= 1", s)
	}
	return FailPoint{Host: s[:i], N: n}, nil
}

// ImportOptions say how an execution becomes a trace and which
// environment events are added for recovery analysis.
type ImportOptions struct {
	// Step is the time between consecutive ops when times come from
	// positions; 0 means DefaultStep.
	Step trace.Time
	// TimeGroup names a regex group holding a timestamp to take times
	// from instead of positions; TimeLayout is its Go time layout (empty:
	// try the layouts of TimeLayouts).
	TimeGroup  string
	TimeLayout string
	// TickEvery adds a checkpoint tick after every TickEvery-th event of
	// each process (0: none).
	TickEvery int
	// TickPeriod adds checkpoint ticks every period of trace time: one
	// value for every process, or one per process in host order.
	TickPeriod []trace.Time
	// FlushEvery adds a log flush after every FlushEvery-th event of each
	// process (0: none).
	FlushEvery int
	// FailAt injects failures after given events.
	FailAt []FailPoint
	// FailMatch injects a failure after every event whose text matches.
	FailMatch *regexp.Regexp
	// Down is the down time of injected failures (0: restart_delay).
	Down trace.Time
	// Params are written into the trace header.
	Params trace.Params
}

// TimeLayouts are tried, in order, for a timestamp group without an
// explicit layout: Akka's, log4j's and RFC 3339.
var TimeLayouts = []string{
	"01/02/2006 15:04:05.000",
	"2006-01-02 15:04:05,000",
	"2006-01-02 15:04:05.000",
	"2006-01-02 15:04:05",
	time.RFC3339Nano,
}

// Stats describe the trace an execution became.
type Stats struct {
	Processes, Events, Messages int
	Ops, Ticks, Flushes, Fails  int
	// Matched counts the events whose text FailMatch matched (each got a
	// failure), so that a pattern matching nothing can be reported.
	Matched int
	// Unplaced names each option that placed no event at all, and why.
	Unplaced []string
}

// Trace converts the execution into a validated execution trace named
// name. Each log event becomes, at its host, one recv per message it
// receives, then one send per message it sends, or one internal op if
// it does neither; the first of these ops carries the event's text and
// other fields as its label. Message ids are "HOST:CLOCK->HOST".
func (ex *Execution) Trace(name string, opts ImportOptions) (*trace.Trace, Stats, error) {
	var st Stats
	if opts.Step <= 0 {
		opts.Step = DefaultStep
	}
	if err := ex.checkImportOptions(name, opts); err != nil {
		return nil, st, err
	}
	failAt, err := ex.failPoints(name, opts)
	if err != nil {
		return nil, st, err
	}
	if opts.TimeGroup != "" && ex.Timed {
		return nil, st, importError(name, "--time-group takes times from a ShiViz log's regex group; these events carry their own times")
	} else if opts.TimeGroup != "" {
		if err := ex.timestamps(name, opts); err != nil {
			return nil, st, err
		}
	}
	c := newConverter(ex, name, opts, failAt)
	for _, e := range ex.Order {
		c.event(e)
	}
	c.emitTicks(c.now + 1)
	if err := trace.Validate(c.tr); err != nil {
		return nil, c.st, err
	}
	c.st.Processes, c.st.Events, c.st.Messages = len(ex.Hosts), len(ex.Events), len(c.tr.Msgs)
	c.st.Unplaced = ex.unplaced(opts, c.st, c.now)
	return c.tr, c.st, nil
}

// unplaced says which of the options asking for environment events
// placed none, and why, so that a user who asked for ticks does not
// analyse a trace without any unawares; end is the last op's time.
func (ex *Execution) unplaced(opts ImportOptions, st Stats, end trace.Time) []string {
	most := 0
	for _, evs := range perHost(ex) {
		most = max(most, len(evs))
	}
	var why []string
	for _, o := range []struct {
		flag   string
		every  int
		placed int
	}{{"--tick-every", opts.TickEvery, st.Ticks}, {"--flush-every", opts.FlushEvery, st.Flushes}} {
		if o.every > most && o.placed == 0 {
			why = append(why, fmt.Sprintf("%s %d placed nothing: no process has %d events (the most any has is %d)", o.flag, o.every, o.every, most))
		}
	}
	if len(opts.TickPeriod) > 0 && slices.Min(opts.TickPeriod) > end {
		why = append(why, fmt.Sprintf("--tick-period placed no tick: the trace ends at %s s, before the first period", end))
	}
	return why
}

// importError blames the options rather than a line, since they are
// checked before any event is converted.
func importError(name, format string, args ...any) error {
	return &trace.InputError{File: name, Event: -1, Msg: fmt.Sprintf(format, args...)}
}

// checkImportOptions rejects tick periods and counts that no trace can
// carry, before any work is done.
func (ex *Execution) checkImportOptions(name string, opts ImportOptions) error {
	nh := len(ex.Hosts)
	if len(opts.TickPeriod) > 1 && len(opts.TickPeriod) != nh {
		return importError(name, "--tick-period has %d values for %d processes (%s); give one, or one per process", len(opts.TickPeriod), nh, strings.Join(ex.Hosts, ", "))
	}
	for _, p := range opts.TickPeriod {
		if p <= 0 {
			return importError(name, "--tick-period values must be > 0")
		}
	}
	if opts.TickEvery < 0 || opts.FlushEvery < 0 || opts.Down < 0 {
		return importError(name, "--tick-every, --flush-every and --down must not be negative")
	}
	return nil
}

// failPoints resolves --fail-at host names to indexes, so that a host or
// event the log lacks is reported instead of silently injecting nothing.
func (ex *Execution) failPoints(name string, opts ImportOptions) (map[[2]int]bool, error) {
	per := perHost(ex)
	failAt := map[[2]int]bool{}
	for _, f := range opts.FailAt {
		h := slices.Index(ex.Hosts, f.Host)
		if h < 0 {
			return nil, importError(name, "--fail-at %s:%d: no host %q in the log (hosts: %s)", f.Host, f.N, f.Host, strings.Join(ex.Hosts, ", "))
		}
		if f.N > len(per[h]) {
			return nil, importError(name, "--fail-at %s:%d: host %q has only %d events", f.Host, f.N, f.Host, len(per[h]))
		}
		failAt[[2]int{h, f.N}] = true
	}
	return failAt, nil
}

// converter holds what Trace threads through every event: the trace
// being built, the message ids sent so far, the per-process counts and
// the pending period ticks.
type converter struct {
	ex     *Execution
	opts   ImportOptions
	failAt map[[2]int]bool
	tr     *trace.Trace
	st     Stats
	// msgOf maps msgKey(sending event, receiving host) to a message index.
	msgOf map[int64]int32
	// seen counts the events converted so far per process.
	seen []int
	// nextTick is the next period tick time per process (nil: none).
	nextTick []trace.Time
	op       int
	now      trace.Time

	// The event being converted: its host and time, its label, and
	// whether its first op is still to come.
	h     int32
	t     trace.Time
	label strings.Builder
	first bool
}

// newConverter starts an empty trace with the first period tick of each
// process scheduled.
func newConverter(ex *Execution, name string, opts ImportOptions, failAt map[[2]int]bool) *converter {
	nh := len(ex.Hosts)
	c := &converter{
		ex:     ex,
		opts:   opts,
		failAt: failAt,
		tr:     &trace.Trace{Name: name, Processes: append([]string(nil), ex.Hosts...), Params: opts.Params},
		msgOf:  make(map[int64]int32, ex.Messages),
		seen:   make([]int, nh),
	}
	c.tr.Events = make([]trace.Event, 0, len(ex.Events)+ex.Messages)
	if len(opts.TickPeriod) > 0 {
		c.nextTick = make([]trace.Time, nh)
		for h := range c.nextTick {
			c.nextTick[h] = c.period(h)
		}
	}
	return c
}

// msgKey identifies a message by its sending event and receiving host,
// which is how a receive finds the send it matches.
func msgKey(sender int32, to int32) int64 { return int64(sender)<<32 | int64(to) }

// period is process h's tick period: --tick-period gives one for all or
// one per process.
func (c *converter) period(h int) trace.Time {
	if len(c.opts.TickPeriod) == 1 {
		return c.opts.TickPeriod[0]
	}
	return c.opts.TickPeriod[h]
}

// emitTicks adds every period tick due strictly before limit, in time
// order, ties by process.
func (c *converter) emitTicks(limit trace.Time) {
	if c.nextTick == nil {
		return
	}
	for {
		best := -1
		for h := range c.nextTick {
			if c.nextTick[h] < limit && (best < 0 || c.nextTick[h] < c.nextTick[best]) {
				best = h
			}
		}
		if best < 0 {
			return
		}
		c.tr.Events = append(c.tr.Events, trace.Event{T: c.nextTick[best], Kind: trace.Checkpoint, P: int32(best), To: trace.None, Msg: trace.None})
		c.st.Ticks++
		c.nextTick[best] += c.period(best)
	}
}

// event converts event e into its ops, then adds the environment events
// that follow it.
func (c *converter) event(e int32) {
	ex := c.ex
	ev := &ex.Events[e]
	c.h, c.t, c.first = ev.Host, ev.Time, true
	c.writeLabel(ev)
	for _, q := range ev.Parents {
		c.add(trace.Event{Kind: trace.Recv, To: trace.None, Msg: c.msgOf[msgKey(q, c.h)]})
	}
	for _, ch := range ev.Children {
		to := ex.Events[ch].Host
		id := ex.Hosts[c.h] + ":" + strconv.Itoa(int(ev.Own)) + "->" + ex.Hosts[to]
		m := int32(len(c.tr.Msgs))
		c.tr.Msgs = append(c.tr.Msgs, id)
		c.msgOf[msgKey(e, to)] = m
		c.add(trace.Event{Kind: trace.Send, To: to, Msg: m})
	}
	if c.first {
		c.add(trace.Event{Kind: trace.Internal, To: trace.None, Msg: trace.None})
	}
	c.seen[c.h]++
	c.environment(ev, c.seen[c.h])
}

// writeLabel puts the event's text and other fields into c.label, which
// the event's first op carries.
func (c *converter) writeLabel(ev *Event) {
	c.label.Reset()
	c.label.WriteString(ev.Text)
	if len(ev.Fields) == 0 {
		return
	}
	c.label.WriteString(" [")
	for j, f := range ev.Fields {
		if j > 0 {
			c.label.WriteString(", ")
		}
		c.label.WriteString(f.Name)
		c.label.WriteByte('=')
		c.label.WriteString(f.Value)
	}
	c.label.WriteByte(']')
}

// add appends one op of the current event at its time, after the period
// ticks due before it; the first op of the event gets the label.
func (c *converter) add(x trace.Event) {
	if c.ex.Timed {
		c.now = c.t
	} else {
		c.op++
		c.now = trace.Time(c.op) * c.opts.Step
	}
	c.emitTicks(c.now)
	x.T, x.P = c.now, c.h
	if c.first {
		x.Label = c.tr.AddLabel(c.label.String())
		c.first = false
	}
	c.tr.Events = append(c.tr.Events, x)
	c.st.Ops++
}

// environment adds the ticks, flushes and failures asked for after the
// n-th event of the current host.
func (c *converter) environment(ev *Event, n int) {
	if c.opts.TickEvery > 0 && n%c.opts.TickEvery == 0 {
		c.env(trace.Checkpoint, "")
		c.st.Ticks++
	}
	if c.opts.FlushEvery > 0 && n%c.opts.FlushEvery == 0 {
		c.env(trace.Flush, "")
		c.st.Flushes++
	}
	matched := c.opts.FailMatch != nil && c.opts.FailMatch.MatchString(ev.Text)
	if matched {
		c.st.Matched++
	}
	if c.failAt[[2]int{int(c.h), n}] || matched {
		c.env(trace.Fail, fmt.Sprintf("injected after %s:%d", c.ex.Hosts[c.h], ev.Own))
		c.st.Fails++
	}
}

// env appends an environment event of the current host at the time of
// its last op; only failures take a down time.
func (c *converter) env(kind trace.Kind, lbl string) {
	x := trace.Event{T: c.now, Kind: kind, P: c.h, To: trace.None, Msg: trace.None, Label: c.tr.AddLabel(lbl)}
	if kind == trace.Fail {
		x.Down = c.opts.Down
	}
	c.tr.Events = append(c.tr.Events, x)
}

// timestamps takes the events' times from the timestamp group, relative
// to the earliest, and makes them consistent with causality (Deskew):
// hosts' clocks are skewed.
func (ex *Execution) timestamps(name string, opts ImportOptions) error {
	layouts := TimeLayouts
	if opts.TimeLayout != "" {
		layouts = []string{opts.TimeLayout}
	}
	abs := make([]time.Time, len(ex.Events))
	for i := range ex.Events {
		ev := &ex.Events[i]
		k := slices.IndexFunc(ev.Fields, func(f Field) bool { return f.Name == opts.TimeGroup })
		if k < 0 {
			return &trace.InputError{File: name, Event: -1, Line: ev.Line, Msg: fmt.Sprintf("the regular expression has no group %q to take times from", opts.TimeGroup)}
		}
		var err error
		for _, l := range layouts {
			if abs[i], err = time.Parse(l, strings.TrimSpace(ev.Fields[k].Value)); err == nil {
				break
			}
		}
		if err != nil {
			return &trace.InputError{File: name, Event: -1, Line: ev.Line, Msg: fmt.Sprintf("cannot read the timestamp %q of group %q (layouts tried: %s)", ev.Fields[k].Value, opts.TimeGroup, strings.Join(layouts, "; "))}
		}
	}
	origin := slices.MinFunc(abs, func(a, b time.Time) int { return a.Compare(b) })
	for i := range ex.Events {
		d := abs[i].Sub(origin)
		if trace.Time(d) > trace.MaxTime {
			return &trace.InputError{File: name, Event: -1, Line: ex.Events[i].Line, Msg: "timestamps span more than ckpt's time range"}
		}
		ex.Events[i].Time = trace.Time(d)
	}
	if err := ex.Deskew(); err != nil {
		return &trace.InputError{File: name, Event: -1, Msg: err.Error()}
	}
	return nil
}
