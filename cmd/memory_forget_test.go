package cmd

import (
	"fmt"
	"testing"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// TestStreamedEstimateCoversKeptVectors: verify's estimate (streamed)
// counts PK's vectors of the sends and ticks up to the trace's last fail
// event, but the engine forgets a vector only past the quiet point (the
// last failure answered: its process restarted, its token home), and
// never one delivered before it. A failure with a long down time early in
// the trace keeps every vector the others make meanwhile, which the
// estimate leaves out: --max-memory then lets through a verify that needs
// many times the memory it estimated.
func TestStreamedEstimateCoversKeptVectors(t *testing.T) {
	b := trace.NewBuilder("P0", "P1", "P2", "P3").FailDown(0.1, "P3", 1000)
	for i := range 40 {
		from, to := fmt.Sprintf("P%d", i%3), fmt.Sprintf("P%d", (i+1)%3)
		msg := fmt.Sprintf("m%d", i)
		b = b.Send(float64(1+2*i), from, to, msg).Recv(float64(2+2*i), to, msg).Checkpoint(float64(2+2*i)+0.5, to)
	}
	tr, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	alg, err := algorithms.New("pk", "", tr)
	if err != nil {
		t.Fatal(err)
	}
	run, err := replay.Run(tr, alg, replay.Options{Forget: true, Stream: func(*trace.Run, int) {}})
	if err != nil {
		t.Fatal(err)
	}
	kept := int64(0)
	for i := range run.PBs {
		if run.PBs[i].VT != nil {
			kept++
		}
	}
	for _, vt := range run.VTs {
		if vt != nil {
			kept++
		}
	}
	s := sizesOf(tr, trace.Params{})
	// replayBytes(streamed) counts sendsToQuiet + ticksToQuiet vectors, and
	// three per busy process (the algorithm's, the checker's, one in
	// flight).
	if counted := s.sendsToQuiet + s.ticksToQuiet + 3*s.busy; kept > counted {
		t.Errorf("the replay keeps %d vectors (%d sends, %d ticks), verify's estimate counts %d", kept, s.sends, s.ticks, counted)
	}
}

// TestStreamedEstimateHonoursDelayFlags: verify replays with the
// --restart-delay and --control-delay it is given, which override the
// trace's params, but the estimate's quiet-point bound (quietBound) reads
// the trace's: with a restart delay longer than the trace's, the quiet
// point comes after sends the estimate does not count, whose vectors the
// replay keeps.
func TestStreamedEstimateHonoursDelayFlags(t *testing.T) {
	b := trace.NewBuilder("P0", "P1", "P2", "P3").Fail(0.1, "P3")
	for i := range 40 {
		from, to := fmt.Sprintf("P%d", i%3), fmt.Sprintf("P%d", (i+1)%3)
		msg := fmt.Sprintf("m%d", i)
		b = b.Send(float64(1+2*i), from, to, msg).Recv(float64(2+2*i), to, msg).Checkpoint(float64(2+2*i)+0.5, to)
	}
	tr, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	params := trace.Params{RestartDelay: 1000 * trace.Second} // verify --restart-delay 1000
	alg, err := algorithms.New("pk", "", tr)
	if err != nil {
		t.Fatal(err)
	}
	run, err := replay.Run(tr, alg, replay.Options{Params: params, Forget: true, Stream: func(*trace.Run, int) {}})
	if err != nil {
		t.Fatal(err)
	}
	kept := int64(0)
	for i := range run.PBs {
		if run.PBs[i].VT != nil {
			kept++
		}
	}
	for _, vt := range run.VTs {
		if vt != nil {
			kept++
		}
	}
	s := sizesOf(tr, params)
	if counted := s.sendsToQuiet + s.ticksToQuiet + 3*s.busy; kept > counted {
		t.Errorf("with --restart-delay 1000 the replay keeps %d vectors (%d sends, %d ticks), verify's estimate counts %d", kept, s.sends, s.ticks, counted)
	}
}
