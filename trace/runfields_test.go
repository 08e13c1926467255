package trace

import "testing"

// TestMissingFieldAllocates nothing: the decoder asks it of every event
// of a run (a slice per event, and a map per control message, before).
func TestMissingFieldAllocatesNothing(t *testing.T) {
	r := &Run{Algorithm: "hmnr"}
	pb := NewPiggyback()
	send := NewRunEvent(Send, 0, 0)
	send.PB, send.Resend = r.AddPB(&pb), true
	ctl := NewRunEvent(ControlRecv, 0, 0)
	if got := r.MissingField(&send) + r.MissingField(&ctl); got != "msgcontrol" {
		t.Fatalf("missing %q, want msg then control", got)
	}
	if n := testing.AllocsPerRun(100, func() { r.MissingField(&send); r.MissingField(&ctl) }); n != 0 {
		t.Fatalf("%v allocations a call", n)
	}
}

// TestMissingFieldHold: a hold of ckpt's own algorithms carries its
// message, what it waits for and (MS, PK) the failure whose recovery it
// waits for; an unhold its message (issue 28: a hold without them
// passed).
func TestMissingFieldHold(t *testing.T) {
	full := func(k Kind) RunEvent {
		e := NewRunEvent(k, 0, 0)
		e.Msg, e.Until, e.Failure = 0, 0, 3
		return e
	}
	for _, c := range []struct {
		alg  string
		kind Kind
		cut  func(*RunEvent)
		want string
	}{
		{"ms", Hold, func(*RunEvent) {}, ""},
		{"ms", Hold, func(e *RunEvent) { e.Msg = None }, "msg"},
		{"ms", Hold, func(e *RunEvent) { e.Until = None }, "until"},
		{"pk", Hold, func(e *RunEvent) { e.Failure = None }, "failure"},
		{"bcs", Hold, func(e *RunEvent) { e.Failure = None }, ""},
		{"ms", Unhold, func(e *RunEvent) { e.Failure = None }, ""},
		{"pk", Unhold, func(e *RunEvent) { e.Msg = None }, "msg"},
		{"foreign", Hold, func(e *RunEvent) { e.Msg, e.Until, e.Failure = None, None, None }, ""},
	} {
		e := full(c.kind)
		c.cut(&e)
		if got := (&Run{Algorithm: c.alg}).MissingField(&e); got != c.want {
			t.Errorf("%s %s: missing %q, want %q", c.alg, c.kind, got, c.want)
		}
	}
}
