package algorithms_test

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// maxTries bounds the search for a trace that kills a mutant.
const maxTries = 2000

// mutationConfig is the generator configuration of try number seed: small
// traces whose knobs cycle with the seed (processes, ops, failures and
// whether they overlap, tick rates, flushes, delays, messages left in
// transit), so that every mutant meets the situation it mishandles within
// a bounded, reproducible number of tries.
func mutationConfig(seed uint64) gen.Config {
	c := gen.DefaultConfig()
	c.Seed = seed
	c.Procs = 2 + int(seed%5)
	c.Events = 20 + int(seed%7)*10
	c.Failures = 1 + int(seed%3)
	c.Concurrent = seed%2 == 0
	c.Ticks = [][]trace.Time{
		{2 * trace.Second},
		{2 * trace.Second, 3 * trace.Second},
		{trace.Second, 5 * trace.Second},
	}[seed%3]
	c.FlushEvery = []trace.Time{0, trace.Second, 4 * trace.Second}[(seed/3)%3]
	c.InTransit = int(seed % 2)
	if seed%4 == 1 {
		// Short control delays and long downtimes: requests and tokens
		// reach processes that are down, recoveries overlap.
		c.Params.ControlDelay = trace.Second / 10
		c.Params.RestartDelay = 3 * trace.Second
	}
	return c
}

// targets are, per mutant, the properties its defect breaks by design
// (SPEC §7 and docs/ms.md, docs/pk.md): the search goes on until each of
// them has failed on some trace, not just until any property fails.
var targets = map[string][]string{
	"ms/textbook":   {report.OrphanFree},
	"ms/no-forced":  {report.SnLines, report.ZCycleFree},
	"ms/no-log":     {report.LogReplayRules},
	"ms/replay-all": {report.LogReplayRules},
	"pk/no-token":   {report.OrphanFree},
	"pk/no-resend":  {report.NoLostMessages},
	"pk/no-requeue": {report.NoLostMessages},
}

// kill is how the search went for one mutant.
type kill struct {
	mutant     string
	first      int      // tries until the first failing report; 0 if none
	properties []string // the properties that failed on that trace
	target     []int    // per target property, tries until it failed; 0 if never
	killedBy   int      // traces of the first 200 tries that kill it
}

// TestMutationScore searches generated traces, seed by seed, until the
// checker reports a failing property on each deliberately broken variant
// and each property the variant breaks by design has failed at least
// once; it asserts that every mutant is killed within maxTries, by its
// target properties, that the real algorithm is clean on every killing
// trace, and logs the score with the tries needed.
func TestMutationScore(t *testing.T) {
	t.Parallel() // among the slowest: overlap them on the cores
	var kills []kill
	traces := make(map[uint64]*trace.Trace)
	traceOf := func(seed uint64) *trace.Trace {
		if tr, ok := traces[seed]; ok {
			return tr
		}
		tr, err := gen.Trace(mutationConfig(seed))
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		tr.Name = fmt.Sprintf("seed-%d.json", seed)
		traces[seed] = tr
		return tr
	}
	clean := make(map[[2]any]bool) // (algorithm, seed) judged clean
	for _, m := range mutants {
		name := m[0] + "/" + m[1]
		k := kill{mutant: name, target: make([]int, len(targets[name]))}
		for seed := uint64(1); seed <= maxTries; seed++ {
			done := k.first > 0 && seed > 200
			for _, n := range k.target {
				done = done && n > 0
			}
			if done {
				break
			}
			tr := traceOf(seed)
			r := consistency.Check(replayWith(t, tr, m[0], m[1]), tr)
			if r.Valid {
				continue
			}
			if seed <= 200 {
				k.killedBy++
			}
			for i, p := range targets[name] {
				if k.target[i] == 0 && status(r, p) == report.Fail {
					k.target[i] = int(seed)
				}
			}
			if k.first == 0 {
				k.first = int(seed)
				for _, p := range r.Properties {
					if p.Status == report.Fail {
						k.properties = append(k.properties, p.Name)
					}
				}
			}
			// A kill counts only if the real algorithm is clean on the
			// same trace: else the checker, not the mutant, is wrong.
			if key := [2]any{m[0], seed}; !clean[key] {
				run := replayWith(t, tr, m[0], "")
				assertClean(t, tr, run, m[0], consistency.Check(run, tr))
				clean[key] = true
			}
		}
		kills = append(kills, k)
	}
	killed := 0
	var b strings.Builder
	for _, k := range kills {
		if k.first == 0 {
			fmt.Fprintf(&b, "\n  %-14s SURVIVED %d tries", k.mutant, maxTries)
			t.Errorf("%s survived %d tries", k.mutant, maxTries)
			continue
		}
		killed++
		fmt.Fprintf(&b, "\n  %-14s killed after %3d tries by %s; kills %3d of the first 200 traces;",
			k.mutant, k.first, strings.Join(k.properties, ", "), k.killedBy)
		for i, p := range targets[k.mutant] {
			if k.target[i] == 0 {
				fmt.Fprintf(&b, " %s never fails", p)
				t.Errorf("%s: %s never fails within %d tries", k.mutant, p, maxTries)
			} else {
				fmt.Fprintf(&b, " %s fails after %d", p, k.target[i])
			}
		}
	}
	t.Logf("mutation score %d/%d:%s", killed, len(kills), b.String())
}

var soak = flag.Int("soak", 0, "number of large generated traces TestSoakLarge verifies (0: a handful)")

// soakConfig is a larger execution than mutationConfig's: up to 8
// processes, 2,000 ops and 6 failures (16, overlapping, for one seed in
// five), every topology.
func soakConfig(seed uint64) gen.Config {
	c := mutationConfig(seed)
	c.Procs = 2 + int(seed%7)
	c.Events = 200 + int(seed%10)*200
	c.Failures = int(seed % 7)
	c.Topology = []gen.Topology{gen.Complete, gen.Ring, gen.Star, gen.Random}[(seed/2)%4]
	c.InTransit = int(seed % 4)
	if seed%5 == 0 {
		// Failure storms: many overlapping recoveries, short downtimes.
		c.Failures += 10
		c.Concurrent = true
		c.Down = trace.Time(1+seed%3) * trace.Second / 4
	}
	return c
}

// TestSoakLarge verifies larger generated traces through both real
// algorithms: every property pass or n/a. -soak N raises the count.
func TestSoakLarge(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 8
	}
	n = max(n, *soak)
	var events, fails int
	defer func() { t.Logf("%d traces, %d events, %d failures, each through ms and pk", n, events, fails) }()
	for seed := uint64(1); seed <= uint64(n); seed++ {
		tr, err := gen.Trace(soakConfig(seed))
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		events += len(tr.Events)
		for _, e := range tr.Events {
			if e.Kind == trace.Fail {
				fails++
			}
		}
		tr.Name = fmt.Sprintf("soak-%d.json", seed)
		for _, a := range sound {
			run := replayWith(t, tr, a[0], a[1])
			assertClean(t, tr, run, a[0], consistency.Check(run, tr))
		}
	}
}
