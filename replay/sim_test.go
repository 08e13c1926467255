package replay_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// withFail returns tr with a fail of p inserted at index at, at the time
// of the event there (or of the last one), down for down.
func withFail(t *testing.T, tr *trace.Trace, at int, p int32, down trace.Time) *trace.Trace {
	out := *tr
	ft := trace.Time(0)
	if at < len(tr.Events) {
		ft = tr.Events[at].T
	} else if at > 0 {
		ft = tr.Events[at-1].T
	}
	ev := trace.Event{T: ft, Kind: trace.Fail, P: p, To: trace.None, Msg: trace.None, Down: down}
	out.Events = slices.Insert(slices.Clone(tr.Events), at, ev)
	if err := trace.Validate(&out); err != nil {
		t.Fatal(err)
	}
	return &out
}

// TestSimMatchesRun: a replay stopped before a point, cloned, and
// continued over the trace with failures inserted there makes exactly
// the run Run makes of that trace — for one failure and for a second one
// on a clone of the first's, through MS (both variants) and PK, on
// generated traces with failures of their own; and the original goes on
// unchanged after its clones.
func TestSimMatchesRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	for seed := range uint64(40) {
		cfg := gen.DefaultConfig()
		cfg.Procs, cfg.Events, cfg.Seed, cfg.Failures = 2+int(seed%3), 30+int(seed*7), seed, int(seed%2)
		tr, err := gen.Trace(cfg)
		if err != nil {
			t.Fatal(err)
		}
		tr.Params = tr.Params.WithDefaults()
		for _, alg := range []struct{ name, variant string }{{"ms", ""}, {"ms", "textbook"}, {"pk", ""}} {
			mk := func(tr *trace.Trace) replay.Algorithm {
				a, err := algorithms.New(alg.name, alg.variant, tr)
				if err != nil {
					t.Fatal(err)
				}
				return a
			}
			want, err := replay.Run(tr, mk(tr), replay.Options{})
			if err != nil {
				t.Fatal(err)
			}
			root, err := replay.Start(tr, mk(tr), replay.Options{})
			if err != nil {
				t.Fatal(err)
			}
			at1 := rng.IntN(len(tr.Events) + 1)
			at2 := at1 + 1 + rng.IntN(len(tr.Events)-at1+1)
			one := withFail(t, tr, at1, int32(rng.IntN(len(tr.Processes))), trace.Second)
			two := withFail(t, one, at2, int32(rng.IntN(len(tr.Processes))), 2*trace.Second)
			got1, got2 := simRun(t, root, one, two, at1, at2)
			for _, c := range []struct {
				tr   *trace.Trace
				got  *trace.Run
				what string
			}{{one, got1, "one failure"}, {two, got2, "two failures"}} {
				want, err := replay.Run(c.tr, mk(c.tr), replay.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if want, got := listed(want), listed(c.got); !reflect.DeepEqual(want, got) {
					t.Fatalf("seed %d %s %s: the continued replay differs from Run (insert at %d, %d): %s", seed, alg.name+alg.variant, c.what, at1, at2, diffRuns(want, got))
				}
			}
			got, err := root.Finish()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(listed(want), listed(got)) {
				t.Fatalf("seed %d %s: the original's run changed after its clones", seed, alg.name+alg.variant)
			}
		}
	}
}

// simRun stops root at at1, continues a clone over one (a fail inserted
// at at1), stops that at at2 and continues a clone of it over two.
func simRun(t *testing.T, root *replay.Sim, one, two *trace.Trace, at1, at2 int) (*trace.Run, *trace.Run) {
	t.Helper()
	must := func(err error) {
		if err != nil {
			t.Helper()
			t.Fatal(err)
		}
	}
	must(root.RunUntil(int32(at1), one.Events[at1].T))
	s1, err := root.Clone()
	must(err)
	must(s1.Insert(one, int32(at1), 1))
	must(s1.RunUntil(int32(at2), two.Events[at2].T))
	s2, err := s1.Clone()
	must(err)
	must(s2.Insert(two, int32(at2), 1))
	got2, err := s2.Finish()
	must(err)
	got1, err := s1.Finish()
	must(err)
	return got1, got2
}

func diffRuns(a, b *trace.Run) string {
	if !reflect.DeepEqual(a.Events, b.Events) {
		for i := range min(len(a.Events), len(b.Events)) {
			if a.Events[i] != b.Events[i] {
				return fmt.Sprintf("event %d: %+v vs %+v", i, a.Events[i], b.Events[i])
			}
		}
		return "events length"
	}
	if !reflect.DeepEqual(a.PBs, b.PBs) {
		return "pbs"
	}
	if !reflect.DeepEqual(a.VTs, b.VTs) {
		return "vts"
	}
	if !reflect.DeepEqual(a.Strings, b.Strings) {
		return "strings"
	}
	if !reflect.DeepEqual(a.Bodies, b.Bodies) {
		return "bodies"
	}
	return "other"
}

// listed returns r with every token's received set as a list: PK hands
// out views of its receipt log, and a clone's earlier tokens view the
// original's log, which holds the same receipts up to them.
func listed(r *trace.Run) *trace.Run {
	c := *r
	c.Bodies = slices.Clone(r.Bodies)
	for i := range c.Bodies {
		c.Bodies[i].Received, c.Bodies[i].Receipts = c.Bodies[i].ReceivedList(), nil
	}
	return &c
}
