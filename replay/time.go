package replay

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/trace"
)

// Time arithmetic without overflow.
//
// trace.Time is int64 nanoseconds and trace.MaxTime = 2^61 − 1 (about 73
// years). Every time the engine holds — now, a process's exec, a queued
// item's time — is at most MaxTime: it is a trace time (validated ≤
// MaxTime, and checked again by newEngine), or a sum checked by later, and
// nothing beyond MaxTime is stored. Every duration the engine adds is at
// most MaxTime too: a gap or a message delay is the difference of two
// trace times in [0, MaxTime]; restart_delay, control_delay,
// default_delay and a fail's down are checked by checkParams and
// newEngine. So base + d ≤ 2·MaxTime = 2^62 − 2 < 2^63 − 1: the sum is
// exact, and later compares it with MaxTime before it is stored.
//
// The limit of a replay is therefore the limit of a trace, and a run
// never holds a time that `check` (which reads times up to MaxTime)
// cannot read. A replay that would pass it — failures and holds push
// the program past its trace times, by up to the sum of the delays
// involved — stops with an *trace.InputError naming the event.

// later returns base + d, the time of something that happens d after
// base, and whether it is within trace.MaxTime. A caller stores nothing
// beyond: it calls tooLate instead.
func later(base, d trace.Time) (trace.Time, bool) {
	t := base + d
	return t, t <= trace.MaxTime
}

// tooLate records that something would happen at t, beyond the limit:
// the first such error stops the run. event is the trace index the error
// names (−1 for none); what describes the thing, with args, and gets the
// time as its last argument. (Only this error path boxes arguments:
// later costs nothing per event.)
func (e *engine) tooLate(t trace.Time, event int, what string, args ...any) {
	if e.err == nil {
		msg := fmt.Sprintf(what, append(args, t.String()+" s")...)
		e.err = &trace.InputError{File: e.tr.Name, Event: event, Line: 0,
			Msg: fmt.Sprintf("replay passes the time limit: %s, beyond %s; shorten the delays or %s", msg, trace.MaxTimeText, trace.EpochHint)}
	}
}

// checkParams checks that the replay params are durations the engine
// can add (see later): > 0 and ≤ trace.MaxTime. Validated traces and the
// command line's flags ensure it; a hand-built Options may not.
func checkParams(file string, p trace.Params) error {
	for _, d := range []struct {
		key string
		v   trace.Time
	}{{"restart_delay", p.RestartDelay}, {"control_delay", p.ControlDelay}, {"default_delay", p.DefaultDelay}} {
		if d.v <= 0 || d.v > trace.MaxTime {
			return &trace.InputError{File: file, Event: -1, Msg: fmt.Sprintf("%s %s: want a duration > 0 and at most %s", d.key, d.v, trace.MaxTimeText)}
		}
	}
	return nil
}
