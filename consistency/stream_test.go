package consistency_test

import (
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/consistency/history"
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
// it streams with the engine forgetting vectors (verify's way).
func streamed(t interface{ Fatalf(string, ...any) }, name string, tr *trace.Trace) (report.Report, *trace.Run) {
	return streamedSharing(t, name, tr, nil)
}

// streamedSharing is streamed, the report taking tr's baseline from base
// (nil: its own).
func streamedSharing(t interface{ Fatalf(string, ...any) }, name string, tr *trace.Trace, base *consistency.Baseline) (report.Report, *trace.Run) {
	alg, err := algorithms.New(name, "", tr)
	if err != nil {
		t.Fatalf("%v", err)
	}
	var s *consistency.Stream
	fed := 0
	run, err := replay.Run(tr, alg, replay.Options{Stream: func(run *trace.Run, upto int) int {
		if s == nil {
			s = consistency.NewStream(run, tr, 0)
			s.ShareBaseline(base)
		}
		for ; fed < upto; fed++ {
			s.Add(&run.Events[fed])
		}
		return fed
	}})
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	return s.Report(), run
}

// TestStreamAgrees: judging a run as it streams, with the engine
// forgetting every vector it may, reports exactly what checking the
// finished run does, and what judging a model built from it afterwards
// does (the vector rules' other path): on random traces with failures,
// through every algorithm. Without failures PK forgets its piggybacks.
// CheckVerdicts (explore's) gives Check's verdicts and recoveries.
func TestStreamAgrees(t *testing.T) {
	for _, name := range []string{"pk", "ms"} {
		t.Run(name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				tr := gentest.Trace().Draw(t, "trace")
				run := replayed(t, name, tr)
				want := consistency.Check(run, tr)
				after := consistency.Judge(history.Build(run, tr, history.AlgOf(run)))
				got, _ := streamed(t, name, tr)
				if !reflect.DeepEqual(after, want) {
					t.Fatalf("judging the finished model:\n%s\nchecking the run:\n%s", dumpReport(after), dumpReport(want))
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("judged as it streamed:\n%s\nchecking the finished run:\n%s", dumpReport(got), dumpReport(want))
				}
				// CheckVerdicts: Check's verdicts and recoveries, no
				// statistics or baseline.
				v := consistency.CheckVerdicts(run, tr)
				if !reflect.DeepEqual(v.Stats, report.Stats{}) || len(v.Baseline.Uncoordinated.Line) > 0 {
					t.Fatalf("CheckVerdicts made the statistics or the baseline")
				}
				v.Stats, v.Baseline = want.Stats, want.Baseline
				if !reflect.DeepEqual(v, want) {
					t.Fatalf("CheckVerdicts:\n%s\nCheck:\n%s", dumpReport(v), dumpReport(want))
				}
			})
		})
	}
}

// TestRestoreAfterForgetting: the engine forgets vectors only where no
// recovery is ahead. A run that restores, or resends, after a vector was
// forgotten broke that promise, and what the rules would read of the
// past may be gone: no property may pass then. (Valid PK runs made to
// look forgetful just before a restart, a resend or a rollback: in the
// first P1 loses its receipt of a and P0 resends it; in the second P0
// loses its unlogged receipt of x, so its send of a, and P1 rolls back
// its receipt of a.)
func TestRestoreAfterForgetting(t *testing.T) {
	lostReceipt, err := trace.NewBuilder("P0", "P1").
		Send(1, "P0", "P1", "a").
		Recv(1.5, "P1", "a").
		Fail(3, "P1").
		Send(5, "P0", "P1", "b").
		Recv(5.5, "P1", "b").
		Build()
	if err != nil {
		t.Fatal(err)
	}
	lostSend, err := trace.NewBuilder("P0", "P1").
		Send(0.5, "P1", "P0", "x").
		Recv(0.8, "P0", "x").
		Send(1, "P0", "P1", "a").
		Recv(1.5, "P1", "a").
		Fail(3, "P0").
		Build()
	if err != nil {
		t.Fatal(err)
	}
	marks := map[string]func(e *trace.RunEvent) bool{
		"nothing":  func(*trace.RunEvent) bool { return false },
		"restart":  func(e *trace.RunEvent) bool { return e.Kind == trace.Restart },
		"resend":   func(e *trace.RunEvent) bool { return e.Kind == trace.Send && e.Resend },
		"rollback": func(e *trace.RunEvent) bool { return e.Kind == trace.Rollback },
	}
	for _, tc := range []struct {
		name, kind string // the mark, and the kind the note names
		tr         *trace.Trace
	}{{"nothing", "", lostReceipt}, {"restart", "restart", lostReceipt}, {"resend", "send", lostReceipt}, {"rollback", "rollback", lostSend}} {
		name, tr := tc.name, tc.tr
		run := replayed(t, "pk", tr)
		forgot, marked := name != "nothing", false
		s := consistency.NewStream(run, tr, 0)
		for i := range run.Events {
			if e := &run.Events[i]; marks[name](e) && !marked {
				run.Forgotten, marked = 1, true
			}
			s.Add(&run.Events[i])
		}
		if forgot && !marked {
			t.Fatalf("the run has no %s", name)
		}
		run.Forgotten = 0
		r := s.Report()
		passes := 0
		for _, p := range r.Properties {
			if p.Status == report.Pass {
				passes++
			}
			if forgot && p.Status == report.Unknown && !(strings.Contains(p.Note, "forgotten") && strings.Contains(p.Note, "the "+tc.kind+" at seq")) {
				t.Errorf("%s: unknown for %q, want the %s after the forgotten vectors named", p.Name, p.Note, tc.kind)
			}
		}
		if forgot != (passes == 0) || report.Judge(&r, false) != map[bool]report.Verdict{false: report.VerdictValid, true: report.VerdictUnknown}[forgot] {
			t.Errorf("forgot=%v: %d properties pass, verdict %s:\n%s", forgot, passes, report.Judge(&r, false), dumpReport(r))
		}
	}
}
