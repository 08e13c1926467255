package algorithms_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"pgregory.net/rapid"

	broken "github.com/ckpt-dev/ckpt/algorithms/mutants"
	"github.com/ckpt-dev/ckpt/pipeline"
	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
	"github.com/ckpt-dev/ckpt/trace/gen/gentest"
)

// rdt lists, by search, the Z-paths no causal path doubles (Wang's
// rollback-dependency trackability, each final state counting as a
// checkpoint as the checker counts it): from every live checkpoint
// C(a,i), the initial one included, every Z-path (as useless walks them)
// whose last message b receives in interval r leads to C(b, r+1) — b's
// next checkpoint or its final state — and a causal path must too.
func (o *oracle) rdt() []string {
	msgs := o.liveMessages()
	_, recvI := o.intervals(msgs)
	var out []string
	for a := range o.ckpts {
		for i := 0; i <= len(o.ckpts[a]); i++ {
			o.zPaths(msgs, int32(a), i, func(k int) bool {
				if b := msgs[k].to; !o.doubled(int32(a), i, b, recvI[k]) {
					out = append(out, fmt.Sprintf("Z-path from %s's checkpoint #%d to %s's #%d (last message received at op %d) not causally doubled",
						o.run.Processes[a], i, o.run.Processes[b], recvI[k]+1, msgs[k].recvOp))
				}
				return true
			})
		}
	}
	return out
}

// doubled reports whether a causal path leads from C(a,i) to C(b,r+1):
// for a = b, i ≤ r; else some op of a in interval i or later happened
// before b's last op of interval r.
func (o *oracle) doubled(a int32, i int, b int32, r int) bool {
	if a == b {
		return i <= r
	}
	end := int32(len(o.live[b]))
	if r < len(o.ckpts[b]) {
		end = o.run.Events[o.ckpts[b][r]].Pos
	}
	if end == 0 {
		return false
	}
	y := o.live[b][end-1]
	start := int32(0)
	if i > 0 {
		start = o.run.Events[o.ckpts[a][i-1]].Pos
	}
	for _, s := range o.live[a][start:] {
		if o.anc[y][s/64]>>(s%64)&1 == 1 {
			return true
		}
	}
	return false
}

// placementJudged are, per checkpoint-placement protocol, the promises
// the checker judges (docs/checker.md) beside the properties every run is
// judged on.
var placementJudged = map[string][]string{
	"bcs":         {report.ZCycleFree, report.SnLines},
	"fdas":        {report.ZCycleFree, report.RDT},
	"hmnr":        {report.ZCycleFree},
	"coordinated": {report.ZCycleFree, report.SnLines},
}

// TestPlacementCheckerAgreesWithOracles: on failure-free traces, the
// checker's verdicts on the runs of bcs, fdas, hmnr and coordinated and
// of their mutants (which break the promises) are the brute-force
// oracles' — the algorithm-independent properties, every promise the
// checker judges for the protocol (z-cycle-free by every Z-path,
// sn-lines by every cut, rdt by every Z-path and causal path), and the
// count of useless checkpoints.
func TestPlacementCheckerAgreesWithOracles(t *testing.T) {
	t.Parallel()
	var all [][2]string
	for _, name := range []string{"bcs", "fdas", "hmnr", "coordinated"} {
		all = append(all, [2]string{name, ""})
	}
	for _, m := range broken.Placement {
		all = append(all, [2]string{m.Algo, m.Name})
	}
	failed := map[string]int{}
	judge := func(t tb, tr *trace.Trace, a [2]string) {
		t.Helper()
		run := replayWith(t, tr, a[0], a[1])
		r := pipeline.Report(run, tr)
		o := newOracle(run)
		if o.unsupported != "" {
			t.Fatalf("%s/%s: the oracle cannot judge a failure-free run: %s", a[0], a[1], o.unsupported)
		}
		lost, mismatch := o.program(tr)
		var eq []string
		if mismatch != "" {
			eq = []string{mismatch}
		}
		useless, which := o.useless()
		oracles := map[string][]string{report.OrphanFree: o.orphans(), report.NoDuplicates: o.duplicates(), report.NoLostMessages: lost,
			report.Equivalence: eq, report.ZCycleFree: which, report.SnLines: o.snLines(), report.RDT: o.rdt()}
		names := append([]string{report.OrphanFree, report.NoDuplicates, report.NoLostMessages, report.Equivalence}, placementJudged[a[0]]...)
		for _, name := range names {
			got, want := status(r, name), verdict(oracles[name])
			if got == report.Fail {
				failed[name]++
			}
			if got != want {
				t.Fatalf("%s %s/%s: checker says %s is %s, oracle %s: %s\n%s\ntrace:\n%s\nrun:\n%s", tr.Name, a[0], a[1], name, got, want,
					strings.Join(oracles[name], "; "), dump(r), traceText(tr), runBytes(t, run, codec.WriteOptions{JSONL: true}))
			}
		}
		if r.Stats.Checkpoints.Useless != useless {
			t.Fatalf("%s/%s: checker counts %d useless checkpoints, oracle %d", a[0], a[1], r.Stats.Checkpoints.Useless, useless)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		judge(t, gentest.FailureFree(traces()).Draw(t, "trace"), rapid.SampledFrom(all).Draw(t, "algorithm"))
	})
	sweep := 100
	if testing.Short() {
		sweep = 20
	}
	for seed := uint64(1); seed <= uint64(sweep); seed++ {
		c := mutationConfig(seed)
		c.Failures = 0
		tr, err := gen.Trace(c)
		if err != nil {
			t.Fatal(err)
		}
		tr.Name = fmt.Sprintf("seed-%d", seed)
		for _, a := range all {
			judge(t, tr, a)
		}
	}
	t.Logf("checker fails per property: %v", failed)
	for _, p := range []string{report.ZCycleFree, report.SnLines, report.RDT} {
		if failed[p] == 0 {
			t.Errorf("%s never failed: the comparison shows only agreement on pass", p)
		}
	}
}
