package consistency_test

import (
	"flag"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen"
)

// Run mutation testing: take runs the real MS and PK produce (clean by
// the checker), break each one in one place — delete, duplicate or move
// one event, or forge one piggyback field — and count the broken runs the
// checker rejects (some property fails). docs/testing.md records the
// score; TestRunMutationScore fails when a class of mutants scores below
// the floor recorded here, so the checker cannot silently get weaker.

var mutationVerbose = flag.Bool("mutation.v", false, "log every surviving run mutant")

// mutationRuns are the clean runs mutated: the bundled traces and a
// fixed set of generated ones with failures, through MS and PK.
func mutationRuns(t *testing.T) []mutationBase {
	t.Helper()
	var traces []*trace.Trace
	files, err := filepath.Glob("../testdata/traces/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no bundled traces: %v", err)
	}
	for _, f := range files {
		tr, err := codec.ReadTraceFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tr.Name = filepath.Base(f)
		traces = append(traces, tr)
	}
	for seed := uint64(1); seed <= 12; seed++ {
		c := gen.DefaultConfig()
		c.Seed, c.Procs, c.Events, c.Failures = seed, 2+int(seed%3), 30+int(seed%4)*10, 1+int(seed%3)
		c.Concurrent = seed%2 == 0
		c.Ticks = []trace.Time{2 * trace.Second, 3 * trace.Second}
		c.FlushEvery = []trace.Time{0, trace.Second, 4 * trace.Second}[seed%3]
		tr, err := gen.Trace(c)
		if err != nil {
			t.Fatal(err)
		}
		tr.Name = fmt.Sprintf("gen-%d", seed)
		traces = append(traces, tr)
	}
	var out []mutationBase
	for _, tr := range traces {
		for _, name := range algorithms.Names {
			alg, err := algorithms.New(name, "", tr)
			if err != nil {
				t.Fatal(err)
			}
			run, err := replay.Run(tr, alg, replay.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r := consistency.Check(run, tr); !r.Valid {
				t.Fatalf("%s under %s is invalid before any mutation: %v", tr.Name, name, r.Properties)
			}
			out = append(out, mutationBase{tr: tr, run: run, name: tr.Name + "/" + name})
		}
	}
	return out
}

type mutationBase struct {
	tr   *trace.Trace
	run  *trace.Run
	name string
}

// mutant is one broken copy of a run and the class it counts in.
type mutant struct {
	class string
	run   *trace.Run
	what  string
}

// cloneRun copies a run deeply enough for one mutation: the event slice
// and the piggyback table (forgeries rewrite entries).
func cloneRun(run *trace.Run) *trace.Run {
	c := *run
	c.Events = append([]trace.RunEvent(nil), run.Events...)
	c.PBs = make([]trace.Piggyback, len(run.PBs))
	for i, pb := range run.PBs {
		pb.F = append([]trace.FEntry(nil), pb.F...)
		pb.VT = append(trace.VT(nil), pb.VT...)
		c.PBs[i] = pb
	}
	return &c
}

// reorder builds a run whose events are the original's at the given
// indexes (an index may repeat or be missing), renumbering seqs and
// pointing each `failure` at its fail event's new seq (None if the fail
// was deleted), so that a mutant breaks only what it says.
func reorder(run *trace.Run, idx []int) *trace.Run {
	c := cloneRun(run)
	newSeq := make(map[int32]int32, len(idx))
	for k, i := range idx {
		if _, ok := newSeq[int32(i)]; !ok {
			newSeq[int32(i)] = int32(k)
		}
	}
	c.Events = make([]trace.RunEvent, len(idx))
	for k, i := range idx {
		e := run.Events[i]
		e.Seq = int32(k)
		if e.Failure != trace.None {
			if s, ok := newSeq[e.Failure]; ok {
				e.Failure = s
			} else {
				e.Failure = trace.None
			}
		}
		c.Events[k] = e
	}
	return c
}

// eventMutants deletes and duplicates every event of the run, and moves
// it past the next (or before the previous) event of its process: the
// two swap places, each taking the time of its new place, so that the run
// stays in time order and only the order of the process's actions
// changes.
func eventMutants(run *trace.Run) []mutant {
	n := len(run.Events)
	var out []mutant
	ident := func() []int {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	swap := func(i, j int) *trace.Run {
		idx := ident()
		idx[i], idx[j] = idx[j], idx[i]
		c := reorder(run, idx)
		c.Events[i].T, c.Events[j].T = run.Events[i].T, run.Events[j].T
		return c
	}
	for i := 0; i < n; i++ {
		kind := run.Events[i].Kind.String()
		del := append(ident()[:i:i], ident()[i+1:]...)
		out = append(out, mutant{"delete " + kind, reorder(run, del), fmt.Sprintf("delete seq %d", i)})
		dup := append(append(ident()[:i+1:i+1], i), ident()[i+1:]...)
		out = append(out, mutant{"duplicate " + kind, reorder(run, dup), fmt.Sprintf("duplicate seq %d", i)})
		if j := sameProc(run, i, +1); j >= 0 {
			out = append(out, mutant{"move " + kind + " later", swap(i, j), fmt.Sprintf("swap seqs %d and %d", i, j)})
		}
		if j := sameProc(run, i, -1); j >= 0 {
			out = append(out, mutant{"move " + kind + " earlier", swap(j, i), fmt.Sprintf("swap seqs %d and %d", j, i)})
		}
	}
	return out
}

// sameProc returns the index of the next (dir +1) or previous (−1) event
// of event i's process, or −1.
func sameProc(run *trace.Run, i, dir int) int {
	for j := i + dir; j >= 0 && j < len(run.Events); j += dir {
		if run.Events[j].P == run.Events[i].P {
			return j
		}
	}
	return -1
}

// pbMutants forges one piggyback field of every send: MS sn ±1, an F
// entry dropped or raised, one added; PK one vector entry's count ±1 or
// incarnation +1.
func pbMutants(run *trace.Run) []mutant {
	var out []mutant
	for i := range run.Events {
		e := &run.Events[i]
		if e.Kind != trace.Send || e.PB == trace.None {
			continue
		}
		forge := func(class, what string, f func(pb *trace.Piggyback) bool) {
			c := cloneRun(run)
			pb := *c.PB(&c.Events[i])
			pb.F = append([]trace.FEntry(nil), pb.F...)
			pb.VT = append(trace.VT(nil), pb.VT...)
			if !f(&pb) {
				return
			}
			c.Events[i].PB = c.AddPB(&pb)
			out = append(out, mutant{class, c, fmt.Sprintf("%s at seq %d", what, i)})
		}
		pb := run.PB(e)
		if pb.Sn != trace.None {
			forge("forge pb.sn +1", "sn+1", func(pb *trace.Piggyback) bool { pb.Sn++; return true })
			forge("forge pb.sn -1", "sn-1", func(pb *trace.Piggyback) bool { pb.Sn--; return pb.Sn >= 0 })
			forge("forge pb.f: drop an entry", "drop F[0]", func(pb *trace.Piggyback) bool {
				if len(pb.F) == 0 {
					return false
				}
				pb.F = pb.F[1:]
				return true
			})
			forge("forge pb.f: add or raise an entry", "F[sender]+1", func(pb *trace.Piggyback) bool {
				for k := range pb.F {
					if pb.F[k].P == e.P {
						pb.F[k].Count++
						return true
					}
				}
				pb.F = append(pb.F, trace.FEntry{P: e.P, Count: 1})
				sort.Slice(pb.F, func(a, b int) bool { return pb.F[a].P < pb.F[b].P })
				return true
			})
		}
		for j := range pb.VT {
			if int32(j) == e.P {
				continue // the sender's own entry is its op count: forged below
			}
			forge("forge pb.vt: other entry count +1", fmt.Sprintf("vt[%d].count+1", j), func(pb *trace.Piggyback) bool { pb.VT[j].Count++; return true })
			forge("forge pb.vt: other entry count -1", fmt.Sprintf("vt[%d].count-1", j), func(pb *trace.Piggyback) bool {
				pb.VT[j].Count--
				return pb.VT[j].Count >= 0
			})
		}
		if len(pb.VT) > int(e.P) {
			forge("forge pb.vt: own entry count +1", "own count+1", func(pb *trace.Piggyback) bool { pb.VT[e.P].Count++; return true })
			forge("forge pb.vt: own incarnation +1", "own inc+1", func(pb *trace.Piggyback) bool { pb.VT[e.P].Inc++; return true })
		}
	}
	return out
}

// mutationScore is the kills per class of one checker.
type mutationScore struct {
	killed, total map[string]int
	survivors     []string
}

func scoreMutants(t *testing.T) mutationScore {
	s := mutationScore{killed: map[string]int{}, total: map[string]int{}}
	for _, b := range mutationRuns(t) {
		for _, mu := range append(eventMutants(b.run), pbMutants(b.run)...) {
			class := b.name[strings.LastIndexByte(b.name, '/')+1:] + ": " + mu.class
			s.total[class]++
			if r := consistency.Check(mu.run, b.tr); !r.Valid {
				s.killed[class]++
			} else {
				s.survivors = append(s.survivors, b.name+": "+mu.class+": "+mu.what)
			}
		}
	}
	return s
}

// mutationFloor is the share of mutants (per mille) this checker kills,
// per algorithm and overall, rounded down; the test fails below it.
// docs/testing.md has the counts.
var mutationFloor = map[string]int{"ms": 970, "pk": 910, "all": 940}

func TestRunMutationScore(t *testing.T) {
	if testing.Short() {
		t.Skip("run mutation is slow-ish (tens of thousands of checks)")
	}
	s := scoreMutants(t)
	classes := make([]string, 0, len(s.total))
	for c := range s.total {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	var b strings.Builder
	per := map[string][2]int{}
	for _, c := range classes {
		fmt.Fprintf(&b, "\n  %-48s %5d / %5d", c, s.killed[c], s.total[c])
		alg := c[:strings.IndexByte(c, ':')]
		k := per[alg]
		per[alg] = [2]int{k[0] + s.killed[c], k[1] + s.total[c]}
		k = per["all"]
		per["all"] = [2]int{k[0] + s.killed[c], k[1] + s.total[c]}
	}
	for _, a := range []string{"ms", "pk", "all"} {
		fmt.Fprintf(&b, "\n  %-48s %5d / %5d (%.1f%%)", "total "+a, per[a][0], per[a][1], 100*float64(per[a][0])/float64(per[a][1]))
	}
	t.Logf("run mutants killed per class:%s", b.String())
	if *mutationVerbose {
		t.Logf("survivors:\n  %s", strings.Join(s.survivors, "\n  "))
	}
	for a, floor := range mutationFloor {
		if per[a][0]*1000 < floor*per[a][1] {
			t.Errorf("%s: %d of %d run mutants killed, below the floor of %d‰", a, per[a][0], per[a][1], floor)
		}
	}
}
