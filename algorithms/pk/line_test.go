package pk

import (
	"slices"
	"testing"

	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// lineTraces are the random recoveries, with more ticks than failures so
// that the line moves between failures.
func lineTraces(t *testing.T, n int) []*trace.Trace {
	var out []*trace.Trace
	for seed := uint64(1); seed <= uint64(n); seed++ {
		cfg := randomConfig(seed)
		cfg.Ticks = []trace.Time{trace.Second, trace.Second * 3 / 2}
		out = append(out, genTrace(t, cfg))
	}
	return out
}

// streamAll replays tr through a, streaming the run to a consumer that
// takes every event at once, so that the engine lets go of what it may.
func streamAll(tr *trace.Trace, a replay.Algorithm) (*trace.Run, error) {
	return replay.Run(tr, a, replay.Options{Stream: func(_ *trace.Run, upto int) int { return upto }})
}

// TestLineCollects: the line moves on the random recoveries, no restore
// crosses it (the engine refuses one that does), collecting changes
// nothing in the run, and the engine lets go of vectors below it.
func TestLineCollects(t *testing.T) {
	var stables, dropped int
	for _, tr := range lineTraces(t, 120) {
		a, err := New(Default, tr)
		if err != nil {
			t.Fatal(err)
		}
		w := &watch{PK: a}
		run, err := streamAll(tr, w)
		if err != nil {
			t.Fatalf("%s: %v", tr.Name, err)
		}
		stables += w.stables
		for i := range run.PBs {
			if run.PBs[i].VT == nil {
				dropped++
			}
		}
		whole := replayPK(t, tr)
		if !sameRunText(t, run, whole) {
			t.Fatalf("%s: the streamed run differs from the whole one beyond its dropped vectors", tr.Name)
		}
		if errs := runErrors(tr, whole, false); len(errs) > 0 {
			t.Fatalf("%s: %v", tr.Name, errs)
		}
	}
	if stables == 0 || dropped == 0 {
		t.Fatalf("the line moved %d times and %d piggybacks were let go: the traces exercise no collection", stables, dropped)
	}
}

// sameRunText reports whether two runs have the same events.
func sameRunText(t *testing.T, a, b *trace.Run) bool {
	t.Helper()
	if len(a.Events) != len(b.Events) {
		return false
	}
	for i := range a.Events {
		x, y := a.Events[i], b.Events[i]
		x.PB, x.VT, y.PB, y.VT = 0, 0, 0, 0
		if x != y {
			return false
		}
	}
	return true
}

// watch counts the line's moves.
type watch struct {
	*PK
	stables int
}

func (w *watch) Step(in *replay.Input, fx []replay.Effect) []replay.Effect {
	fx = w.PK.Step(in, fx)
	for i := range fx {
		if fx[i].Kind == replay.EffStable {
			w.stables++
		}
	}
	return fx
}

// overCollect is a mutant: where the line moves it collects one entry
// more than the line allows, the first receipt kept (receipt) or the
// line's checkpoint (checkpoint).
type overCollect struct {
	*PK
	checkpoint bool
}

func (o *overCollect) Step(in *replay.Input, fx []replay.Effect) []replay.Effect {
	n := len(fx)
	fx = o.PK.Step(in, fx)
	for _, f := range fx[n:] {
		if f.Kind != replay.EffStable {
			continue
		}
		p := &o.procs[f.To]
		switch {
		case o.checkpoint && len(p.ckpts) > 1:
			p.ckpts = slices.Delete(p.ckpts, 0, 1)
		case !o.checkpoint && p.stable > 0:
			p.below = p.receipts[0].node
			p.receipts = slices.Delete(p.receipts, 0, 1)
			p.stable--
		}
	}
	return fx
}

// TestOverCollectCaught: collecting one log entry or one checkpoint more
// than the line allows makes some recovery go wrong, and the checker
// says so: the line is not merely safe, it is tight enough for the tests
// to notice a step past it.
func TestOverCollectCaught(t *testing.T) {
	traces := lineTraces(t, 200)
	for _, mutant := range []struct {
		name       string
		checkpoint bool
	}{{"receipt", false}, {"checkpoint", true}} {
		t.Run(mutant.name, func(t *testing.T) {
			for _, tr := range traces {
				a, err := New(Default, tr)
				if err != nil {
					t.Fatal(err)
				}
				run, err := replay.Run(tr, &overCollect{PK: a, checkpoint: mutant.checkpoint}, replay.Options{})
				if err != nil {
					t.Logf("caught on %s: %v", tr.Name, err)
					return
				}
				if errs := runErrors(tr, run, false); len(errs) > 0 {
					t.Logf("caught on %s: %s", tr.Name, errs[0])
					return
				}
				for _, p := range consistency.Check(run, tr).Properties {
					if p.Status == report.Fail {
						t.Logf("caught on %s: %s", tr.Name, p.Name)
						return
					}
				}
			}
			t.Errorf("collecting one %s too many passes every trace", mutant.name)
		})
	}
}
