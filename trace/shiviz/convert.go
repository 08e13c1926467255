package shiviz

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

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

// Stats describe the trace an execution became.
type Stats struct {
	Processes, Events, Messages int
	Ticks, Flushes, Fails       int
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
	return ex.convert(name, opts, &tickCap{limit: maxAddedTicks + 10*float64(len(ex.Events))})
}

// Traces turns every execution of the log into a trace named name, as
// opts say, in order (Trace). The cap on the ticks --tick-period adds
// holds for the whole log, since every trace is held until all are
// written. A FailMatch pattern that matches no event's text is an
// error: the user asked for failures and would otherwise get traces
// without any, which verify valid without exercising recovery.
func (l *Log) Traces(name string, opts ImportOptions) ([]*trace.Trace, []Stats, error) {
	traces := make([]*trace.Trace, len(l.Executions))
	stats := make([]Stats, len(l.Executions))
	ticks := &tickCap{limit: maxAddedTicks}
	for _, ex := range l.Executions {
		ticks.limit += 10 * float64(len(ex.Events))
	}
	matched := 0
	for i, ex := range l.Executions {
		var err error
		if traces[i], stats[i], err = ex.convert(name, opts, ticks); err != nil {
			// The options apply to each execution: say which one fails.
			if ie := (*trace.InputError)(nil); len(l.Executions) > 1 && errors.As(err, &ie) {
				ie.Msg = fmt.Sprintf("execution %d (%q): %s", i+1, ex.Label, ie.Msg)
			}
			return nil, nil, err
		}
		matched += stats[i].Matched
	}
	if opts.FailMatch != nil && matched == 0 {
		return nil, nil, fmt.Errorf("%s: --fail-match %q matches no event's text, so no failure would be injected (the pattern is a Go regular expression, matched against each event's text)", name, opts.FailMatch)
	}
	return traces, stats, nil
}

// convert is Trace, the ticks --tick-period adds counted against ticks.
func (ex *Execution) convert(name string, opts ImportOptions, ticks *tickCap) (*trace.Trace, Stats, error) {
	if opts.Step <= 0 {
		opts.Step = DefaultStep
	}
	c := &converter{ex: ex, opts: opts, firstMsg: make([]int32, len(ex.Events)), ticks: ticks,
		tr: &trace.Trace{Name: name, Processes: slices.Clone(ex.Hosts), Params: opts.Params}}
	if err := c.checkOptions(name); err != nil {
		return nil, c.st, err
	}
	if opts.TimeGroup != "" {
		if err := ex.timestamps(name, opts); err != nil {
			return nil, c.st, err
		}
	}
	if err := c.checkTicks(name); err != nil {
		return nil, c.st, err
	}
	c.tr.Events = make([]trace.Event, 0, len(ex.Events)+ex.Messages())
	c.next = newTickQueue(c.periods)
	for _, e := range ex.Order {
		c.event(e)
	}
	c.emitTicks(c.now + 1)
	if err := trace.Validate(c.tr); err != nil {
		return nil, c.st, err
	}
	c.st.Processes, c.st.Events, c.st.Messages = len(ex.Hosts), len(ex.Events), len(c.tr.Msgs)
	c.unplaced()
	return c.tr, c.st, nil
}

// checkOptions rejects tick periods that no trace can carry, and resolves
// --fail-at host names to events, so that a host or event the log lacks
// is reported instead of silently injecting nothing.
func (c *converter) checkOptions(name string) error {
	ex, nh := c.ex, len(c.ex.Hosts)
	if len(c.opts.TickPeriod) > 1 && len(c.opts.TickPeriod) != nh {
		return inputError(name, 0, "--tick-period has %d values for %d process%s (%s); give one, or one per process", len(c.opts.TickPeriod), nh, map[bool]string{true: "es"}[nh != 1], shownAll(ex.Hosts))
	}
	if slices.ContainsFunc(c.opts.TickPeriod, func(p trace.Time) bool { return p <= 0 }) {
		return inputError(name, 0, "--tick-period values must be > 0")
	}
	if c.periods = c.opts.TickPeriod; len(c.periods) == 1 {
		c.periods = slices.Repeat(c.periods, nh)
	}
	c.per, c.failAt = perHost(ex), make([]bool, len(ex.Events))
	for _, f := range c.opts.FailAt {
		h := slices.Index(ex.Hosts, f.Host)
		if h < 0 {
			return inputError(name, 0, "--fail-at %s:%d: no host %q in the log (hosts: %s)", f.Host, f.N, f.Host, shownAll(ex.Hosts))
		}
		if n := len(c.per[h]); f.N > n {
			return inputError(name, 0, "--fail-at %s:%d: host %q has only %d event%s", f.Host, f.N, f.Host, n, map[bool]string{true: "s"}[n != 1])
		}
		c.failAt[c.per[h][f.N-1]] = true
	}
	return nil
}

// unplaced notes which of the options asking for environment events
// placed none, and why, so that a user who asked for ticks does not
// analyse a trace without any unawares.
func (c *converter) unplaced() {
	most := 0
	for _, evs := range c.per {
		most = max(most, len(evs))
	}
	for _, o := range []struct {
		flag          string
		every, placed int
	}{{"--tick-every", c.opts.TickEvery, c.st.Ticks}, {"--flush-every", c.opts.FlushEvery, c.st.Flushes}} {
		if o.every > most && o.placed == 0 {
			c.st.Unplaced = append(c.st.Unplaced, fmt.Sprintf("%s %d placed nothing: no process has %d events (the most any has is %d)", o.flag, o.every, o.every, most))
		}
	}
	if len(c.opts.TickPeriod) > 0 && slices.Min(c.opts.TickPeriod) > c.now {
		c.st.Unplaced = append(c.st.Unplaced, fmt.Sprintf("--tick-period placed no tick: the trace ends at %s s, before the first period", c.now))
	}
}

// converter holds what Trace threads through every event: the trace
// being built, the message ids sent so far, the events failures follow
// and the pending period ticks.
type converter struct {
	ex   *Execution
	opts ImportOptions
	// per lists each host's events (perHost); failAt marks the events
	// --fail-at injects a failure after.
	per    [][]int32
	failAt []bool
	tr     *trace.Trace
	st     Stats
	// firstMsg is the index of the first message each event sends: its
	// k-th child receives message firstMsg+k. One event may send to two
	// events of one host (a span calling one service twice), so the
	// receiving host would not name the message.
	firstMsg []int32
	// periods is each process's tick period (nil: none); next orders
	// the processes by their next period tick; ticks caps how many the
	// periods add.
	periods []trace.Time
	next    *tickQueue
	ticks   *tickCap
	op      int
	now     trace.Time

	// The event being converted: its host and time, and its label until
	// its first op takes it.
	h     int32
	t     trace.Time
	label int32
}

// repeat tells apart the messages one event sends to one host: "" for
// the first, "#2" for the second (earlier lists the children before it).
func (c *converter) repeat(earlier []int32, to int32) string {
	n := 1
	for _, ch := range earlier {
		if c.ex.Events[ch].Host == to {
			n++
		}
	}
	if n == 1 {
		return ""
	}
	return "#" + strconv.Itoa(n)
}

// label is the event's text and then its fields: "TEXT [NAME=VALUE, …]".
func (ev *Event) label() string {
	label, sep := ev.Text, " ["
	for _, f := range ev.Fields {
		label, sep = label+sep+f.Name+"="+f.Value, ", "
	}
	if len(ev.Fields) > 0 {
		label += "]"
	}
	return label
}

// event converts event e into its ops, then adds the environment events
// that follow it.
func (c *converter) event(e int32) {
	ex := c.ex
	ev := &ex.Events[e]
	c.h, c.t, c.label = ev.Host, ev.Time, c.tr.AddLabel(ev.label())
	for _, q := range ev.Parents {
		c.add(trace.Event{Kind: trace.Recv, To: trace.None, Msg: c.firstMsg[q] + int32(slices.Index(ex.Events[q].Children, e))})
	}
	c.firstMsg[e] = int32(len(c.tr.Msgs))
	for k, ch := range ev.Children {
		to := ex.Events[ch].Host
		c.tr.Msgs = append(c.tr.Msgs, ex.Hosts[c.h]+":"+strconv.Itoa(int(ev.Own))+"->"+ex.Hosts[to]+c.repeat(ev.Children[:k], to))
		c.add(trace.Event{Kind: trace.Send, To: to, Msg: c.firstMsg[e] + int32(k)})
	}
	if len(ev.Parents)+len(ev.Children) == 0 {
		c.add(trace.Event{Kind: trace.Internal, To: trace.None, Msg: trace.None})
	}
	// Events reach a host in the order of their own clock values: ev is
	// its host's Own-th.
	n := int(ev.Own)
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
	if c.failAt[e] || matched {
		c.env(trace.Fail, fmt.Sprintf("injected after %s:%d", ex.Hosts[c.h], ev.Own))
		c.st.Fails++
	}
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
	x.T, x.P, x.Label, c.label = c.now, c.h, c.label, 0
	c.tr.Events = append(c.tr.Events, x)
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
