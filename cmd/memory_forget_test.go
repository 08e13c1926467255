package cmd

import (
	"fmt"
	"testing"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// TestStreamedEstimateCoversKeptVectors: verify's estimate (streamed)
// counts PK's vectors of the sends and ticks before a bound on the quiet
// point, from which the engine forgets them (the last failure answered:
// its process restarted, its token home; never one delivered before it).
// The replay must keep no more than the estimate counts:
//   - a long down time early in the trace keeps every vector the others
//     make meanwhile (a bound at the last fail event left them out);
//   - verify replays with --restart-delay and --control-delay, which
//     override the trace's params (a bound from the trace's alone left
//     out what a longer flag keeps).
//
// And it must count less than every vector when the failure is early and
// short: that is what the streamed estimate is for.
func TestStreamedEstimateCoversKeptVectors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		down   float64      // the failure's down time, 0 for the restart delay
		params trace.Params // verify's delay flags
		saves  bool         // the estimate leaves vectors out
	}{
		{"long down time", 1000, trace.Params{}, false},
		{"--restart-delay 1000", 0, trace.Params{RestartDelay: 1000 * trace.Second}, false},
		{"early short failure", 0.5, trace.Params{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := trace.NewBuilder("P0", "P1", "P2", "P3").Fail(0.1, "P3")
			if tc.down > 0 {
				b = trace.NewBuilder("P0", "P1", "P2", "P3").FailDown(0.1, "P3", tc.down)
			}
			for i := range 40 {
				from, to := fmt.Sprintf("P%d", i%3), fmt.Sprintf("P%d", (i+1)%3)
				msg := fmt.Sprintf("m%d", i)
				b = b.Send(float64(1+2*i), from, to, msg).Recv(float64(2+2*i), to, msg).Checkpoint(float64(2+2*i)+0.5, to)
			}
			tr, err := b.Build()
			if err != nil {
				t.Fatal(err)
			}
			run := replayWith(t, "pk", tr, replay.Options{Params: tc.params, Stream: func(_ *trace.Run, upto int) int { return upto }})
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
			// replayBytes(streamed) counts sendsToQuiet + ticksToQuiet
			// vectors, and three per busy process (the algorithm's, the
			// checker's, one in flight).
			s := sizesOf(tr, tc.params)
			counted := s.sendsToQuiet + s.ticksToQuiet + 3*s.busy
			if kept > counted {
				t.Errorf("the replay keeps %d vectors (%d sends, %d ticks), verify's estimate counts %d", kept, s.sends, s.ticks, counted)
			}
			if tc.saves && s.sendsToQuiet+s.ticksToQuiet >= s.sends+s.ticks {
				t.Errorf("the estimate counts every vector (%d of %d sends, %d of %d ticks)", s.sendsToQuiet, s.sends, s.ticksToQuiet, s.ticks)
			}
		})
	}
}

// replayWith replays tr through a fresh algorithm name with opts.
func replayWith(t *testing.T, name string, tr *trace.Trace, opts replay.Options) *trace.Run {
	t.Helper()
	alg, err := algorithms.New(name, "", tr)
	if err != nil {
		t.Fatal(err)
	}
	run, err := replay.Run(tr, alg, opts)
	if err != nil {
		t.Fatal(err)
	}
	return run
}
