package ms_test

import (
	"testing"

	"github.com/ckpt-dev/ckpt/algorithms/ms"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/replay/replaytest"
	"github.com/ckpt-dev/ckpt/trace"
)

func TestSmoke(t *testing.T) {
	tr, err := trace.NewBuilder("P0", "P1", "P2").
		Checkpoint(0.1, "P0").
		Send(0.4, "P0", "P1", "m1").
		Recv(0.9, "P1", "m1").
		Send(1.0, "P1", "P2", "m2").
		Checkpoint(1.1, "P1").
		Checkpoint(1.2, "P1").
		Send(1.3, "P2", "P1", "m3").
		Recv(1.4, "P1", "m3").
		Recv(1.5, "P2", "m2").
		Fail(2.0, "P1").
		Build()
	if err != nil {
		t.Fatal(err)
	}
	a, _ := ms.New("", tr)
	run, err := replay.Run(tr, a, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + replaytest.Dump(run))
}
