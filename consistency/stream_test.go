package consistency_test

import (
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/measure"
	"github.com/ckpt-dev/ckpt/pipeline"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen/gentest"
)

// replayed replays tr through a fresh algorithm name and returns the whole
// run.
func replayed(t interface{ Fatalf(string, ...any) }, name string, tr *trace.Trace) *trace.Run {
	alg, err := algorithms.New(name, "", tr)
	if err != nil {
		t.Fatalf("%v", err)
	}
	run, err := replay.Run(tr, alg, replay.Options{})
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	return run
}

// streamed replays tr through a fresh algorithm name, judging the run as
// it streams (verify's way).
func streamed(t interface{ Fatalf(string, ...any) }, name string, tr *trace.Trace) (report.Report, *trace.Run) {
	return streamedSharing(t, name, tr, measure.StartBaseline(tr))
}

// streamedSharing is streamed, the report taking tr's baseline from
// base.
func streamedSharing(t interface{ Fatalf(string, ...any) }, name string, tr *trace.Trace, base *measure.Baseline) (report.Report, *trace.Run) {
	alg, err := algorithms.New(name, "", tr)
	if err != nil {
		t.Fatalf("%v", err)
	}
	var s *consistency.Stream
	fed := 0
	run, err := replay.Run(tr, alg, replay.Options{Stream: func(run *trace.Run, upto int) int {
		if s == nil {
			s = consistency.NewStream(run, tr, 0)
		}
		for ; fed < upto; fed++ {
			s.Add(&run.Events[fed])
		}
		return 0 // the run is returned whole, vectors and all
	}})
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	r := s.Report()
	measure.Fill(&r, s.Model(), base)
	return r, run
}

// TestStreamAgrees: judging a run as it streams reports exactly what
// checking the finished run does: on random traces with failures,
// through every algorithm.
func TestStreamAgrees(t *testing.T) {
	for _, name := range []string{"pk", "ms"} {
		t.Run(name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				tr := gentest.Trace().Draw(t, "trace")
				run := replayed(t, name, tr)
				want := pipeline.Report(run, tr)
				got, _ := streamed(t, name, tr)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("judged as it streamed:\n%s\nchecking the finished run:\n%s", dumpReport(got), dumpReport(want))
				}
			})
		})
	}
}
