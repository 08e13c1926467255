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
