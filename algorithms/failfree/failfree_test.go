package failfree

import (
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/trace"
)

func TestCheck(t *testing.T) {
	ok, err := tracetest.NewBuilder("P0", "P1").Send(0.1, "P0", "P1", "m").Recv(0.2, "P1", "m").Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(ok, "bcs"); err != nil {
		t.Fatalf("failure-free trace refused: %v", err)
	}
	bad, err := tracetest.NewBuilder("P0", "P1").Send(0.1, "P0", "P1", "m").Fail(0.15, "P0").Recv(0.2, "P1", "m").Build()
	if err != nil {
		t.Fatal(err)
	}
	bad.Name = "x.json"
	err = Check(bad, "bcs")
	want := "x.json: trace event 1: fail: bcs places checkpoints in failure-free executions only and has no recovery (replay failures with ms or pk)"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if _, ok := err.(*trace.InputError); !ok {
		t.Fatalf("err is %T, want *trace.InputError (exit status 2)", err)
	}
}
