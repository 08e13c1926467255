package shiviz

import (
	"fmt"
	"regexp"
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
	// Clamped counts events whose timestamp went back in causal order and
	// was raised to the previous time.
	Clamped int
}

// Trace converts the execution into a validated execution trace named
// name. Each log event becomes, at its host, one recv per message it
// receives, then one send per message it sends, or one internal op if
// it does neither; the first of these ops carries the event's text and
// other fields as its label. Message ids are "HOST:CLOCK->HOST".
func (ex *Execution) Trace(name string, opts ImportOptions) (*trace.Trace, Stats, error) {
	var st Stats
	nh := len(ex.Hosts)
	errf := func(format string, args ...any) error {
		return &trace.InputError{File: name, Event: -1, Msg: fmt.Sprintf(format, args...)}
	}
	if opts.Step <= 0 {
		opts.Step = DefaultStep
	}
	if len(opts.TickPeriod) > 1 && len(opts.TickPeriod) != nh {
		return nil, st, errf("--tick-period has %d values for %d processes (%s); give one, or one per process", len(opts.TickPeriod), nh, strings.Join(ex.Hosts, ", "))
	}
	for _, p := range opts.TickPeriod {
		if p <= 0 {
			return nil, st, errf("--tick-period values must be > 0")
		}
	}
	if opts.TickEvery < 0 || opts.FlushEvery < 0 || opts.Down < 0 {
		return nil, st, errf("--tick-every, --flush-every and --down must not be negative")
	}
	hostIdx := make(map[string]int32, nh)
	counts := make([]int, nh)
	for i, h := range ex.Hosts {
		hostIdx[h] = int32(i)
	}
	for i := range ex.Events {
		counts[ex.Events[i].Host]++
	}
	failAt := map[[2]int]bool{}
	for _, f := range opts.FailAt {
		h, ok := hostIdx[f.Host]
		if !ok {
			return nil, st, errf("--fail-at %s:%d: no host %q in the log (hosts: %s)", f.Host, f.N, f.Host, strings.Join(ex.Hosts, ", "))
		}
		if f.N > counts[h] {
			return nil, st, errf("--fail-at %s:%d: host %q has only %d events", f.Host, f.N, f.Host, counts[h])
		}
		failAt[[2]int{int(h), f.N}] = true
	}

	// Times of events in causal order.
	times := make([]trace.Time, len(ex.Order))
	if opts.TimeGroup != "" {
		var err error
		if st.Clamped, err = ex.timestamps(name, opts, times); err != nil {
			return nil, st, err
		}
	}

	tr := &trace.Trace{Name: name, Processes: append([]string(nil), ex.Hosts...), Params: opts.Params}
	tr.Events = make([]trace.Event, 0, len(ex.Events)+ex.Messages)
	msgOf := make(map[int64]int32, ex.Messages)
	key := func(sender int32, to int32) int64 { return int64(sender)<<32 | int64(to) }
	seen := make([]int, nh)

	// Period ticks: the next tick time per process.
	period := func(h int) trace.Time {
		if len(opts.TickPeriod) == 1 {
			return opts.TickPeriod[0]
		}
		return opts.TickPeriod[h]
	}
	var nextTick []trace.Time
	if len(opts.TickPeriod) > 0 {
		nextTick = make([]trace.Time, nh)
		for h := range nextTick {
			nextTick[h] = period(h)
		}
	}
	// emitTicks adds every period tick due strictly before limit, in time
	// order, ties by process.
	emitTicks := func(limit trace.Time) {
		if nextTick == nil {
			return
		}
		for {
			best := -1
			for h := range nextTick {
				if nextTick[h] < limit && (best < 0 || nextTick[h] < nextTick[best]) {
					best = h
				}
			}
			if best < 0 {
				return
			}
			tr.Events = append(tr.Events, trace.Event{T: nextTick[best], Kind: trace.Checkpoint, P: int32(best), To: trace.None, Msg: trace.None})
			st.Ticks++
			nextTick[best] += period(best)
		}
	}

	var label strings.Builder
	op := 0
	var now trace.Time
	for k, e := range ex.Order {
		ev := &ex.Events[e]
		h := ev.Host
		label.Reset()
		label.WriteString(ev.Text)
		if len(ev.Fields) > 0 {
			label.WriteString(" [")
			for j, f := range ev.Fields {
				if j > 0 {
					label.WriteString(", ")
				}
				label.WriteString(f.Name)
				label.WriteByte('=')
				label.WriteString(f.Value)
			}
			label.WriteByte(']')
		}
		first := true
		add := func(x trace.Event) {
			if opts.TimeGroup == "" {
				op++
				now = trace.Time(op) * opts.Step
			} else {
				now = times[k]
			}
			emitTicks(now)
			x.T, x.P = now, h
			if first {
				x.Label = label.String()
				first = false
			}
			tr.Events = append(tr.Events, x)
			st.Ops++
		}
		for _, q := range ev.Parents {
			add(trace.Event{Kind: trace.Recv, To: trace.None, Msg: msgOf[key(q, h)]})
		}
		for _, c := range ev.Children {
			to := ex.Events[c].Host
			id := ex.Hosts[h] + ":" + strconv.Itoa(int(ev.Own)) + "->" + ex.Hosts[to]
			m := int32(len(tr.Msgs))
			tr.Msgs = append(tr.Msgs, id)
			msgOf[key(e, to)] = m
			add(trace.Event{Kind: trace.Send, To: to, Msg: m})
		}
		if first {
			add(trace.Event{Kind: trace.Internal, To: trace.None, Msg: trace.None})
		}
		seen[h]++
		n := seen[h]
		env := func(kind trace.Kind, lbl string) {
			x := trace.Event{T: now, Kind: kind, P: h, To: trace.None, Msg: trace.None, Label: lbl}
			if kind == trace.Fail {
				x.Down = opts.Down
			}
			tr.Events = append(tr.Events, x)
		}
		if opts.TickEvery > 0 && n%opts.TickEvery == 0 {
			env(trace.Checkpoint, "")
			st.Ticks++
		}
		if opts.FlushEvery > 0 && n%opts.FlushEvery == 0 {
			env(trace.Flush, "")
			st.Flushes++
		}
		matched := opts.FailMatch != nil && opts.FailMatch.MatchString(ev.Text)
		if matched {
			st.Matched++
		}
		if failAt[[2]int{int(h), n}] || matched {
			env(trace.Fail, fmt.Sprintf("injected after %s:%d", ex.Hosts[h], ev.Own))
			st.Fails++
		}
	}
	emitTicks(now + 1)
	if err := trace.Validate(tr); err != nil {
		return nil, st, err
	}
	st.Processes, st.Events, st.Messages = nh, len(ex.Events), len(tr.Msgs)
	return tr, st, nil
}

// timestamps fills times (indexed by position in ex.Order) from the
// timestamp group, relative to the earliest one. A timestamp earlier than
// its causal predecessor's (clock skew between hosts) is raised to it;
// the count of such raises is returned.
func (ex *Execution) timestamps(name string, opts ImportOptions, times []trace.Time) (int, error) {
	layouts := TimeLayouts
	if opts.TimeLayout != "" {
		layouts = []string{opts.TimeLayout}
	}
	abs := make([]time.Time, len(ex.Order))
	var origin time.Time
	for k, e := range ex.Order {
		ev := &ex.Events[e]
		val, found := "", false
		for _, f := range ev.Fields {
			if f.Name == opts.TimeGroup {
				val, found = f.Value, true
			}
		}
		if !found {
			return 0, &trace.InputError{File: name, Event: -1, Line: ev.Line, Msg: fmt.Sprintf("the regular expression has no group %q to take times from", opts.TimeGroup)}
		}
		var t time.Time
		var err error
		for _, l := range layouts {
			if t, err = time.Parse(l, strings.TrimSpace(val)); err == nil {
				break
			}
		}
		if err != nil {
			return 0, &trace.InputError{File: name, Event: -1, Line: ev.Line, Msg: fmt.Sprintf("cannot read the timestamp %q of group %q (layouts tried: %s)", val, opts.TimeGroup, strings.Join(layouts, "; "))}
		}
		abs[k] = t
		if k == 0 || t.Before(origin) {
			origin = t
		}
	}
	clamped := 0
	for k := range abs {
		d := abs[k].Sub(origin)
		t := trace.Time(d)
		if t > trace.MaxTime {
			return 0, &trace.InputError{File: name, Event: -1, Line: ex.Events[ex.Order[k]].Line, Msg: "timestamps span more than ckpt's time range"}
		}
		if k > 0 && t < times[k-1] {
			t = times[k-1]
			clamped++
		}
		times[k] = t
	}
	return clamped, nil
}
