package consistency

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// randomRun builds an arbitrary (often wrong) recovery run: processes do
// internal ops, sends and receives of pending copies, fail, restart at a
// random position, and other processes roll back for the failure at
// random positions. Correct or not, the checker's orphan verdicts must
// match a brute-force search.
func randomRun(rng *rand.Rand, np, steps int) *trace.Run {
	names := make([]string, np)
	for i := range names {
		names[i] = fmt.Sprintf("P%d", i)
	}
	b := newRun("acme", names...)
	live := make([]int32, np) // live op count per process
	down := make([]int32, np) // fail seq, or -1
	for i := range down {
		down[i] = -1
	}
	type cp struct {
		msg string
		to  int
	}
	var pending []cp
	nmsg := 0
	for s := 0; s < steps; s++ {
		p := rng.Intn(np)
		name := names[p]
		if down[p] >= 0 {
			f := down[p]
			pos := int32(rng.Intn(int(live[p]) + 1))
			b.restart(name, 0, pos, live[p]-pos, f)
			live[p], down[p] = pos, -1
			for q := 0; q < np; q++ {
				if q != p && down[q] < 0 && rng.Intn(2) == 0 {
					pos := int32(rng.Intn(int(live[q]) + 1))
					b.rollback(names[q], 0, pos, live[q]-pos, f, trace.CauseRequest)
					live[q] = pos
				}
			}
			continue
		}
		switch k := rng.Intn(10); {
		case k < 2:
			b.internal(name, live[p])
			live[p]++
		case k < 5:
			q := rng.Intn(np - 1)
			if q >= p {
				q++
			}
			nmsg++
			m := fmt.Sprintf("m%d", nmsg)
			b.send(name, names[q], m, live[p], 1, nil)
			live[p]++
			pending = append(pending, cp{m, q})
		case k < 9:
			for i, c := range pending {
				if c.to == p {
					b.recv(name, "P0", c.msg, live[p], 1, trace.ViaNet)
					live[p]++
					pending = append(pending[:i], pending[i+1:]...)
					break
				}
			}
		default:
			down[p] = b.fail(name)
		}
	}
	return b.run
}

// bruteOrphans returns the handling seqs (restarts and rollbacks) right
// after which the process holds a receipt whose send depends, by a full
// transitive search, on an event undone for the same failure.
func bruteOrphans(run *trace.Run) []int32 {
	ev := run.Events
	np := len(run.Processes)
	stacks := make([][]int32, np)
	pred := map[int32]int32{}
	sendOf := map[int32]int32{}
	sends := map[int32]int32{} // msg → send seq (copy 1 only)
	undoneFor := map[int32]int32{}
	type hp struct {
		seq, f int32
		stack  []int32
	}
	var hps []hp
	for i := range ev {
		e := &ev[i]
		s := int32(i)
		switch e.Kind {
		case trace.Send, trace.Recv, trace.Internal:
			st := stacks[e.P]
			pred[s] = -1
			if len(st) > 0 {
				pred[s] = st[len(st)-1]
			}
			stacks[e.P] = append(st, s)
			if e.Kind == trace.Send {
				sends[e.Msg] = s
			} else if e.Kind == trace.Recv {
				sendOf[s] = sends[e.Msg]
			}
		case trace.Restart, trace.Rollback:
			st := stacks[e.P]
			for _, x := range st[e.Pos:] {
				undoneFor[x] = e.Failure
			}
			stacks[e.P] = append([]int32(nil), st[:e.Pos]...)
			hps = append(hps, hp{s, e.Failure, append([]int32(nil), stacks[e.P]...)})
		}
	}
	var depends func(x, f int32, seen map[int32]bool) bool
	depends = func(x, f int32, seen map[int32]bool) bool {
		if x < 0 || seen[x] {
			return false
		}
		seen[x] = true
		if g, ok := undoneFor[x]; ok && g == f {
			return true
		}
		if s, ok := sendOf[x]; ok && depends(s, f, seen) {
			return true
		}
		return depends(pred[x], f, seen)
	}
	var out []int32
	for _, h := range hps {
		for _, x := range h.stack {
			if ev[x].Kind == trace.Recv && depends(sendOf[x], h.f, map[int32]bool{}) {
				out = append(out, h.seq)
				break
			}
		}
	}
	return out
}

func TestOrphansAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	flagged := 0
	for i := 0; i < 400; i++ {
		run := randomRun(rng, 2+rng.Intn(3), 10+rng.Intn(40))
		want := bruteOrphans(run)
		r := Check(run, nil)
		var got int
		all := dump(r)
		for _, p := range r.Properties {
			if p.Name != report.OrphanFree {
				continue
			}
			for _, v := range p.Violations {
				if strings.Contains(v.Message, "keeps a receipt") {
					got++
				}
			}
		}
		if len(want) >= maxWitnesses {
			continue
		}
		if got != len(want) {
			t.Fatalf("run %d: checker flags %d handling points, brute force %v\n%s", i, got, want, all)
		}
		for _, h := range want {
			if !strings.Contains(all, fmt.Sprintf("right after handling the failure at seq %d ", h)) {
				t.Fatalf("run %d: handling point %d not flagged\n%s", i, h, all)
			}
		}
		flagged += len(want)
	}
	t.Logf("%d orphan handling points cross-checked", flagged)
	if flagged == 0 {
		t.Fatal("the random runs never produced an orphan: the oracle test tests nothing")
	}
}

// bruteMinimal returns the rollbacks that, by a full transitive search,
// undo an op that does not depend on the failure's lost ops (L_f: what
// its restart undid) or keep one that does.
func bruteMinimal(run *trace.Run) map[int32]bool {
	ev := run.Events
	np := len(run.Processes)
	stacks := make([][]int32, np)
	pred := map[int32]int32{}
	sendOf := map[int32]int32{}
	sends := map[int32]int32{}
	lostBy := map[int32]int32{} // op → failure whose restart undid it
	type rb struct {
		seq, f       int32
		undone, kept []int32
	}
	var rbs []rb
	for i := range ev {
		e := &ev[i]
		s := int32(i)
		switch e.Kind {
		case trace.Send, trace.Recv, trace.Internal:
			st := stacks[e.P]
			pred[s] = -1
			if len(st) > 0 {
				pred[s] = st[len(st)-1]
			}
			stacks[e.P] = append(st, s)
			if e.Kind == trace.Send {
				sends[e.Msg] = s
			} else if e.Kind == trace.Recv {
				sendOf[s] = sends[e.Msg]
			}
		case trace.Restart, trace.Rollback:
			st := stacks[e.P]
			if e.Kind == trace.Restart {
				for _, x := range st[e.Pos:] {
					lostBy[x] = e.Failure
				}
			} else {
				rbs = append(rbs, rb{s, e.Failure, append([]int32(nil), st[e.Pos:]...), append([]int32(nil), st[:e.Pos]...)})
			}
			stacks[e.P] = append([]int32(nil), st[:e.Pos]...)
		}
	}
	var depends func(x, f int32, seen map[int32]bool) bool
	depends = func(x, f int32, seen map[int32]bool) bool {
		if x < 0 || seen[x] {
			return false
		}
		seen[x] = true
		if g, ok := lostBy[x]; ok && g == f {
			return true
		}
		if s, ok := sendOf[x]; ok && depends(s, f, seen) {
			return true
		}
		return depends(pred[x], f, seen)
	}
	out := map[int32]bool{}
	for _, r := range rbs {
		for _, x := range r.undone {
			if !depends(x, r.f, map[int32]bool{}) {
				out[r.seq] = true
			}
		}
		if len(r.kept) > 0 && depends(r.kept[len(r.kept)-1], r.f, map[int32]bool{}) {
			out[r.seq] = true
		}
	}
	return out
}

func TestMinimalRollbackAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	checked, bad := 0, 0
	for i := 0; i < 400; i++ {
		run := randomRun(rng, 2+rng.Intn(3), 10+rng.Intn(40))
		run.Algorithm = "pk"
		want := bruteMinimal(run)
		r := Check(run, nil)
		got := map[int32]bool{}
		for _, p := range r.Properties {
			if p.Name != report.MinimalRollback {
				continue
			}
			if len(p.Violations) >= maxWitnesses {
				continue
			}
			for _, v := range p.Violations {
				got[v.Seqs[0]] = true
			}
		}
		if len(want) >= maxWitnesses {
			continue
		}
		for s := range want {
			if !got[s] {
				t.Fatalf("run %d: rollback at seq %d not flagged (brute force %v)\n%s", i, s, want, dump(r))
			}
		}
		for s := range got {
			if !want[s] {
				t.Fatalf("run %d: rollback at seq %d flagged, brute force says minimal\n%s", i, s, dump(r))
			}
		}
		checked++
		bad += len(want)
	}
	t.Logf("%d runs, %d non-minimal rollbacks cross-checked", checked, bad)
	if bad == 0 {
		t.Fatal("no non-minimal rollback generated: the oracle tests nothing")
	}
}
