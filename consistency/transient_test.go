package consistency_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// A transient orphan from a real (deliberately unsound) algorithm: under
// the textbook variant, on this generated trace (the algorithm mutation
// search's seed 92), P0 replays from its log a message whose send P3's
// restart undid, after it had handled that failure; a later recovery
// rolls the receipt back, so neither a handling point nor the final state
// holds it, and the original checker passed the run. The default MS
// passes.
func TestTransientOrphanOfTextbook(t *testing.T) {
	c := gen.DefaultConfig()
	c.Seed, c.Procs, c.Events, c.Failures, c.Concurrent = 92, 4, 30, 3, true
	c.Ticks = []trace.Time{trace.Second, 5 * trace.Second}
	c.FlushEvery = 0
	tr, err := gen.Trace(c)
	if err != nil {
		t.Fatal(err)
	}
	judge := func(variant string) report.Report {
		alg, err := algorithms.New("ms", variant, tr)
		if err != nil {
			t.Fatal(err)
		}
		run, err := replay.Run(tr, alg, replay.Options{Variant: variant})
		if err != nil {
			t.Fatal(err)
		}
		return consistency.Check(run, tr)
	}
	if good := judge(""); !good.Valid {
		t.Fatalf("default MS fails: %v", statuses(good))
	}
	bad := judge("textbook")
	if !hasViolation(bad, report.LogReplayRules, "P0 delivers orphan m1 at seq 32 after handling failure seq 5") {
		t.Fatalf("textbook: no transient orphan of m1 reported: %v", statuses(bad))
	}
	for _, p := range bad.Properties {
		if p.Name == report.OrphanFree && p.Status != report.Pass {
			t.Errorf("orphan-free is %s: the orphan is transient, no handling point or final state holds it", p.Status)
		}
	}
}

func statuses(r report.Report) string {
	var b strings.Builder
	for _, p := range r.Properties {
		fmt.Fprintf(&b, "\n%s=%s %s", p.Name, p.Status, p.Note)
		for _, v := range p.Violations {
			fmt.Fprintf(&b, "\n   %s\n      because %s", v.Message, v.Because)
		}
	}
	return b.String()
}

func hasViolation(r report.Report, prop, witness string) bool {
	for _, p := range r.Properties {
		for _, v := range p.Violations {
			if p.Name == prop && strings.Contains(v.Message+" "+v.Because, witness) {
				return true
			}
		}
	}
	return false
}
