package protocoltest_test

import (
	"fmt"
	"github.com/ckpt-dev/ckpt/algorithms"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/algorithms/bcs"
	"github.com/ckpt-dev/ckpt/algorithms/coordinated"
	"github.com/ckpt-dev/ckpt/algorithms/fdas"
	"github.com/ckpt-dev/ckpt/algorithms/hmnr"
	"github.com/ckpt-dev/ckpt/algorithms/ms"
	"github.com/ckpt-dev/ckpt/algorithms/protocoltest"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

type protocol struct {
	name    string
	mk      protocoltest.New
	promise []protocoltest.Promise
}

var protocols = []protocol{
	{"ms", func(tr *trace.Trace) (replay.Algorithm, error) { return ms.New("", tr) }, []protocoltest.Promise{protocoltest.ZCycleFree, protocoltest.SnConsistent}},
	{"bcs", func(tr *trace.Trace) (replay.Algorithm, error) { return algorithms.New(bcs.Name, "", tr) }, []protocoltest.Promise{protocoltest.ZCycleFree, protocoltest.SnConsistent}},
	{"hmnr", func(tr *trace.Trace) (replay.Algorithm, error) { return algorithms.New(hmnr.Name, "", tr) }, []protocoltest.Promise{protocoltest.ZCycleFree}},
	{"fdas", func(tr *trace.Trace) (replay.Algorithm, error) { return algorithms.New(fdas.Name, "", tr) }, []protocoltest.Promise{protocoltest.Trackable}},
	{"coordinated", func(tr *trace.Trace) (replay.Algorithm, error) { return algorithms.New(coordinated.Name, "", tr) }, []protocoltest.Promise{protocoltest.SnConsistent, protocoltest.ZCycleFree}},
}

// TestCompareClassic replays the classic workload (protocoltest.Classic)
// over a small grid through every protocol, checks each one's promise,
// logs forced checkpoints per basic one (run with -v for the table) and
// asserts the shapes the literature reports: FDAS, which must keep RDT,
// forces more than the index-based BCS, and HMNR, which forces only what
// Z-cycle freedom needs, forces fewer than both.
func TestCompareClassic(t *testing.T) {
	if testing.Short() {
		t.Skip("measurement")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-5s %-5s %-5s", "procs", "ict", "mtt")
	for _, p := range protocols {
		fmt.Fprintf(&b, " %12s", p.name)
	}
	b.WriteString("   (forced/basic; coordinated: control msgs/round checkpoint)\n")
	sum := map[string]float64{}
	for _, w := range []struct {
		procs    int
		ict, mtt float64
	}{{4, 10, 1}, {8, 10, 1}, {8, 5, 1}, {8, 20, 1}, {16, 10, 1}, {8, 10, 0.2}} {
		fmt.Fprintf(&b, "%-5d %-5g %-5g", w.procs, w.ict, w.mtt)
		for _, p := range protocols {
			var basic, forced, control int
			for seed := uint64(1); seed <= 3; seed++ {
				tr := protocoltest.Classic(t, w.procs, 3000, w.ict, w.mtt, seed)
				a, err := p.mk(tr)
				if err != nil {
					t.Fatal(err)
				}
				run := protocoltest.Replay(t, tr, a)
				pt, err := protocoltest.PatternOf(run)
				if err != nil {
					t.Fatal(err)
				}
				for _, pr := range p.promise {
					if err := pr(pt); err != nil {
						t.Errorf("%s on %+v seed %d: %v", p.name, w, seed, err)
					}
				}
				c := protocoltest.CountsOf(run)
				basic, forced, control = basic+c.Basic, forced+c.Forced, control+c.Control
			}
			r := float64(forced) / float64(basic)
			if p.name == "coordinated" {
				r = float64(control) / float64(basic)
			}
			sum[p.name] += r
			fmt.Fprintf(&b, " %12.3f", r)
		}
		b.WriteByte('\n')
	}
	t.Log(b.String())
	if !(sum["hmnr"] < sum["bcs"] && sum["bcs"] < sum["fdas"]) {
		t.Errorf("forced per basic summed over the grid: hmnr %.3f, bcs %.3f, fdas %.3f; want hmnr < bcs < fdas", sum["hmnr"], sum["bcs"], sum["fdas"])
	}
}
