package measure

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/algorithms/mutants"
	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/consistency/history"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace/codec"
	"github.com/ckpt-dev/ckpt/trace/gen/gentest"
)

// TestSummarizeSumsRecoveries: Summarize, which reads only a failure's
// handlers, and Extra sum exactly what Recoveries reports for it, on random
// traces with failures through the algorithms and broken variants that
// roll back more or less than they should.
func TestSummarizeSumsRecoveries(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		tr := gentest.Trace().Draw(rt, "trace")
		name := rapid.SampledFrom([]string{"ms", "pk"}).Draw(rt, "algorithm")
		variants := map[string][]string{"ms": {"", "textbook", "no-log", "replay-all"}, "pk": {"", "no-token", "no-resend"}}
		variant := rapid.SampledFrom(variants[name]).Draw(rt, "variant")
		alg, err := mutants.New(name, variant, tr)
		if err != nil {
			rt.Fatal(err)
		}
		run, err := replay.Run(tr, alg, replay.Options{Variant: variant})
		if err != nil {
			rt.Skip(err) // a mutant may not replay
		}
		_, m := consistency.Judge(run, tr)
		for fi, rec := range Recoveries(m) {
			got := Summarize(m, fi)
			extra := Extra(m, fi, got.Undone)
			if want, wantExtra := sumLine(&rec); got != want || extra != wantExtra {
				rt.Fatalf("failure %d: Summarize %+v, extra %d; Recoveries sum to %+v, extra %d", fi, got, extra, want, wantExtra)
			}
		}
	})
}

// sumLine sums a recovery line of the report, and its extra rollback.
func sumLine(rec *report.Recovery) (s Sum, extra int) {
	for i := range rec.Line {
		le := &rec.Line[i]
		s.Undone += le.Undone
		if le.Extra != nil {
			extra += *le.Extra
		}
		if le.Restore != nil {
			s.Rolled++
		}
		if le.P == rec.Failure.P {
			s.Failed = le.Undone
		}
	}
	return s, extra
}

// TestNoMaxLineLeavesExtraBlank: a failure whose max line was not drawn
// (here its snapshot is dropped, as past history.SnapshotBudget) gets
// no extra figures, JSON null rather than a 0 that reads as measured,
// and a note saying why; the failures that have one keep their figures.
func TestNoMaxLineLeavesExtraBlank(t *testing.T) {
	tr, err := codec.ReadTraceFile("../testdata/traces/forced.json")
	if err != nil {
		t.Fatal(err)
	}
	alg, err := mutants.New("ms", "", tr)
	if err != nil {
		t.Fatal(err)
	}
	run, err := replay.Run(tr, alg, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, m := consistency.Judge(run, tr)
	if len(m.Failures) == 0 || Recoveries(m)[0].Line[0].Extra == nil {
		t.Fatal("forced.json: want a failure with a max line")
	}
	m.Failures[0].Snap.Heads = nil
	rec := Recoveries(m)[0]
	if rec.MaxLine != nil || !strings.Contains(rec.Note, strconv.Itoa(history.SnapshotBudget)) {
		t.Errorf("max line %v, note %q; want none, and a note naming the bound", rec.MaxLine, rec.Note)
	}
	for _, le := range rec.Line {
		if b, _ := json.Marshal(le); !strings.Contains(string(b), `"extra":null`) {
			t.Errorf("%s", b)
		}
	}
}
