package trace

import (
	"testing"
)

func TestValidateInMemory(t *testing.T) {
	base := func() *Trace {
		return &Trace{
			Processes: []string{"P0", "P1"},
			Msgs:      []string{"m1"},
			Events: []Event{
				{T: Second, Kind: Send, P: 0, To: 1, Msg: 0},
				{T: 2 * Second, Kind: Recv, P: 1, To: 0, Msg: 0, Down: 5}, // To and Down are normalized away
				{T: 3 * Second, Kind: Internal, P: 0, To: 0, Msg: 0},      // likewise To and Msg
				{T: 4 * Second, Kind: Fail, P: 1, To: None, Msg: None, Down: Second},
			},
		}
	}
	tr := base()
	if err := Validate(tr); err != nil {
		t.Fatal(err)
	}
	if tr.Messages[0] != (Message{Send: 0, Recv: 1}) {
		t.Errorf("Messages %+v", tr.Messages)
	}
	if e := tr.Events[1]; e.To != None || e.Down != 0 {
		t.Errorf("recv not normalized: %+v", e)
	}
	if e := tr.Events[2]; e.To != None || e.Msg != None {
		t.Errorf("internal not normalized: %+v", e)
	}
	if tr.Events[3].Down != Second {
		t.Errorf("fail lost its down")
	}

	tests := []struct {
		name   string
		mutate func(*Trace)
		want   string
	}{
		{"no processes", func(tr *Trace) { tr.Processes = nil }, `"processes" must list at least one process`},
		{"bad kind", func(tr *Trace) { tr.Events[2].Kind = Restart }, `event 2: unknown kind "restart"`},
		{"bad p", func(tr *Trace) { tr.Events[2].P = 7 }, `event 2: unknown process index 7`},
		{"bad to", func(tr *Trace) { tr.Events[0].To = -1 }, `event 0: send to unknown process index -1`},
		{"bad msg", func(tr *Trace) { tr.Events[1].Msg = 3 }, `event 1: recv of unknown message index 3`},
		{"negative t", func(tr *Trace) { tr.Events[0].T = -1 }, `event 0: "t" must be a finite number >= 0, got -0.000000001`},
		{"decreasing", func(tr *Trace) { tr.Events[3].T = 0 }, `event 3: t 0 is before the previous event's t 3 (events must be in non-decreasing t)`},
		{"negative down", func(tr *Trace) { tr.Events[3].Down = -Second }, `event 3: "down" must be a finite number > 0, got -1`},
		{"dup msgs", func(tr *Trace) { tr.Msgs = []string{"m1", "m1"} }, `message id "m1" appears twice in Msgs`},
		{"bad params", func(tr *Trace) { tr.Params.DefaultDelay = -Second }, `params.default_delay must be a finite number > 0, got -1`},
		{"unsent", func(tr *Trace) { tr.Events[0].Kind = Internal }, `event 1: recv of unknown message "m1" (no event sends it)`},
		{"self", func(tr *Trace) { tr.Events[0].To = 0 }, `event 0: send of "m1" to itself (P0)`},
		{"wrong receiver", func(tr *Trace) { tr.Events[1].P = 0 }, `event 1: recv of "m1" by P0, but it was sent to P1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := base()
			tt.mutate(tr)
			err := Validate(tr)
			if err == nil || err.Error() != tt.want {
				t.Errorf("got  %v\nwant %s", err, tt.want)
			}
		})
	}
}
