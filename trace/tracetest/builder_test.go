package tracetest

import (
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
)

func TestBuilder(t *testing.T) {
	tr, err := NewBuilder("P0", "P1", "P2").
		Params(trace.Params{RestartDelay: 2 * trace.Second}).
		Send(0.4, "P0", "P1", "m1").
		Checkpoint(0.5, "P0").
		Recv(0.9, "P1", "m1").
		Internal(1.2, "P2").Label("compute").
		Flush(1.5, "P1").
		FailDown(2, "P1", 0.25).
		Build()
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Events) != 6 || len(tr.Msgs) != 1 || tr.Messages[0] != (trace.Message{Send: 0, Recv: 2}) {
		t.Fatalf("got %+v", tr)
	}
	if tr.Label(&tr.Events[3]) != "compute" || tr.Events[5].Down != trace.Second/4 || tr.Events[0].To != 1 || tr.Events[1].To != trace.None {
		t.Fatalf("events %+v", tr.Events)
	}
	if tr.Params.RestartDelay != 2*trace.Second {
		t.Fatalf("params %+v", tr.Params)
	}
	if err := trace.Validate(tr); err != nil {
		t.Fatalf("Validate of a built trace: %v", err)
	}
}

func TestBuilderFail(t *testing.T) {
	tr, err := NewBuilder("P0").Fail(1, "P0").Build()
	if err != nil || tr.Events[0].Kind != trace.Fail || tr.Events[0].Down != 0 {
		t.Fatalf("%+v %v", tr, err)
	}
}

func TestBuilderErrors(t *testing.T) {
	tests := []struct {
		name string
		b    *Builder
		want string
	}{
		{"no processes", NewBuilder(), `"processes" must list at least one process`},
		{"duplicate process", NewBuilder("P0", "P0"), `duplicate process name "P0"`},
		{"unknown process", NewBuilder("P0").Internal(1, "P9"), `event 0: unknown process "P9"`},
		{"negative t", NewBuilder("P0").Internal(-1, "P0"), `event 0: "t" must be a finite number >= 0, got -1`},
		{"decreasing t", NewBuilder("P0").Internal(2, "P0").Internal(1, "P0"), `event 1: t 1 is before the previous event's t 2 (events must be in non-decreasing t)`},
		{"self send", NewBuilder("P0").Send(1, "P0", "P0", "m"), `event 0: send of "m" to itself (P0)`},
		{"dup msg", NewBuilder("P0", "P1").Send(1, "P0", "P1", "m").Send(1, "P0", "P1", "m"), `event 1: duplicate message id "m" (already sent by event 0)`},
		{"recv before send", NewBuilder("P0", "P1").Recv(1, "P1", "m").Send(2, "P0", "P1", "m"), `event 0: recv of "m" before its send`},
		{"recv unknown", NewBuilder("P0", "P1").Recv(1, "P1", "m").Internal(2, "P0"), `event 0: recv of unknown message "m" (no event sends it)`},
		{"recv wrong proc", NewBuilder("P0", "P1", "P2").Send(1, "P0", "P1", "m").Recv(2, "P2", "m"), `event 1: recv of "m" by P2, but it was sent to P1`},
		{"recv twice", NewBuilder("P0", "P1").Send(1, "P0", "P1", "m").Recv(2, "P1", "m").Recv(3, "P1", "m"), `event 2: recv of "m" twice (first by event 1)`},
		{"bad down", NewBuilder("P0").FailDown(1, "P0", 0), `event 0: "down" must be a finite number > 0, got 0`},
		{"bad params", NewBuilder("P0").Params(trace.Params{ControlDelay: -1}), `params.control_delay must be a finite number > 0, got -0.000000001`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.b.Build()
			if err == nil {
				t.Fatal("Build accepted an invalid trace")
			}
			if _, ok := err.(*trace.InputError); !ok {
				t.Errorf("error is %T, want *InputError", err)
			}
			if err.Error() != tt.want {
				t.Errorf("got  %s\nwant %s", err, tt.want)
			}
		})
	}
}
