package trace

// Builder assembles a trace in code, for tests and examples:
//
//	tr, err := trace.NewBuilder("P0", "P1").
//		Send(0.4, "P0", "P1", "m1").
//		Recv(0.9, "P1", "m1").
//		Build()
//
// Times are in seconds. Methods record events without checking them;
// Build validates everything and reports the first problem as an
// *InputError naming the event, exactly as a decoder would.
type Builder struct {
	procs  []string
	params struct {
		p   Params
		set bool
	}
	events []builderEvent
}

type builderEvent struct {
	kind         string
	t, down      float64
	hasDown      bool
	p, to, msg   string
	hasTo, hasMs bool
	label        string
}

// NewBuilder starts a trace over the given processes, in ring order.
func NewBuilder(procs ...string) *Builder {
	return &Builder{procs: append([]string(nil), procs...)}
}

func (b *Builder) add(e builderEvent) *Builder {
	b.events = append(b.events, e)
	return b
}

// Send records that p sends message msg to process to at time t.
func (b *Builder) Send(t float64, p, to, msg string) *Builder {
	return b.add(builderEvent{kind: "send", t: t, p: p, to: to, msg: msg, hasTo: true, hasMs: true})
}

// Recv records that p receives message msg at time t.
func (b *Builder) Recv(t float64, p, msg string) *Builder {
	return b.add(builderEvent{kind: "recv", t: t, p: p, msg: msg, hasMs: true})
}

// Internal records an internal operation of p at time t.
func (b *Builder) Internal(t float64, p string) *Builder {
	return b.add(builderEvent{kind: "internal", t: t, p: p})
}

// Checkpoint records a tick of p's basic checkpoint timer at time t.
func (b *Builder) Checkpoint(t float64, p string) *Builder {
	return b.add(builderEvent{kind: "checkpoint", t: t, p: p})
}

// Flush records that p writes its volatile message log to stable storage.
func (b *Builder) Flush(t float64, p string) *Builder {
	return b.add(builderEvent{kind: "flush", t: t, p: p})
}

// Fail records a crash of p at time t, down for the restart_delay.
func (b *Builder) Fail(t float64, p string) *Builder {
	return b.add(builderEvent{kind: "fail", t: t, p: p})
}

// FailDown records a crash of p at time t that keeps it down for down
// seconds.
func (b *Builder) FailDown(t float64, p string, down float64) *Builder {
	return b.add(builderEvent{kind: "fail", t: t, p: p, down: down, hasDown: true})
}

// Params sets the trace's replay defaults; zero fields stay unset.
func (b *Builder) Params(p Params) *Builder {
	b.params.p, b.params.set = p, true
	return b
}

// Label attaches a label to the last event recorded so far.
func (b *Builder) Label(s string) *Builder {
	if n := len(b.events); n > 0 {
		b.events[n-1].label = s
	}
	return b
}

// Build validates the recorded events and returns the trace, or the
// first problem as an *InputError.
func (b *Builder) Build() (*Trace, error) {
	a := newAssembler("")
	if err := a.setProcesses(append([]string(nil), b.procs...)); err != nil {
		return nil, err
	}
	if b.params.set {
		p := b.params.p
		for _, f := range []struct {
			key string
			v   Time
		}{{"restart_delay", p.RestartDelay}, {"control_delay", p.ControlDelay}, {"default_delay", p.DefaultDelay}} {
			if f.v < 0 || f.v > MaxTime {
				return nil, a.headerErr("%s", badTime("params."+f.key, f.v, true))
			}
		}
		a.tr.Params = p
	}
	var r rawEvent
	for _, e := range b.events {
		r.reset()
		r.t, r.tOK = FromSeconds(e.t)
		r.tf, r.hasT = e.t, true
		r.kind, r.hasKind = append(r.kind, e.kind...), true
		r.p, r.hasP = append(r.p, e.p...), true
		r.to, r.hasTo = append(r.to, e.to...), e.hasTo
		r.msg, r.hasMsg = append(r.msg, e.msg...), e.hasMs
		r.down, r.downOK = FromSeconds(e.down)
		r.downf, r.hasDown = e.down, e.hasDown
		r.label = append(r.label, e.label...)
		if err := a.add(&r); err != nil {
			return nil, err
		}
	}
	return a.finish()
}
