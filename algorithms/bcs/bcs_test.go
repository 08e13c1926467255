package bcs

import (
	"testing"

	"github.com/ckpt-dev/ckpt/algorithms/protocoltest"
	"github.com/ckpt-dev/ckpt/trace"
)

func pb(lc int32) trace.Piggyback {
	p := trace.NewPiggyback()
	p.CIC = &trace.CIC{LC: lc}
	return p
}

// TestStep: the rules of the package comment, input by input.
func TestStep(t *testing.T) {
	tick, send, recv := protocoltest.Tick, protocoltest.Send, protocoltest.Recv
	protocoltest.CheckSteps(t, newBCS, []protocoltest.StepCase{
		{Name: "basic checkpoints count up from 1", Steps: []protocoltest.Step{
			{In: send(0, 1), Want: []string{"piggyback lc=0"}},
			{In: tick(0), Want: []string{"checkpoint 1 basic sn=1"}},
			{In: tick(0), Want: []string{"checkpoint 2 basic sn=2"}},
			{In: send(0, 1), Want: []string{"piggyback lc=2"}},
			{In: tick(1), Want: []string{"checkpoint 1 basic sn=1"}},
		}},
		// The forced checkpoint takes the message's number, not lc+1:
		// the S_n lines of the theorem need it (TestForcedNumber).
		{Name: "forced before delivery, numbered m.lc", Steps: []protocoltest.Step{
			{In: recv(1, 0, pb(3)), Want: []string{"checkpoint 1 forced sn=3", "deliver"}},
			{In: send(1, 2), Want: []string{"piggyback lc=3"}},
			{In: tick(1), Want: []string{"checkpoint 2 basic sn=4"}},
		}},
		{Name: "no forced checkpoint for an equal or lower lc", Steps: []protocoltest.Step{
			{In: tick(1), Want: []string{"checkpoint 1 basic sn=1"}},
			{In: recv(1, 0, pb(1)), Want: []string{"deliver"}},
			{In: recv(1, 0, pb(0)), Want: []string{"deliver"}},
			{In: send(1, 2), Want: []string{"piggyback lc=1"}},
		}},
		{Name: "a tick of a down process takes nothing", Steps: []protocoltest.Step{
			{In: protocoltest.Down(tick(2)), Want: nil},
			{In: tick(2), Want: []string{"checkpoint 1 basic sn=1"}},
		}},
	})
}
