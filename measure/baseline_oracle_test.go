package measure

import (
	"fmt"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/trace"
	"pgregory.net/rapid"
)

// genTrace draws a small valid trace with ticks and failures.
func genTrace(t *rapid.T) *trace.Trace {
	np := rapid.IntRange(1, 3).Draw(t, "procs")
	procs := make([]string, np)
	for p := range procs {
		procs[p] = fmt.Sprintf("P%d", p)
	}
	b := tracetest.NewBuilder(procs...)
	type msg struct{ id, to string }
	var pending []msg
	steps := rapid.IntRange(0, 28).Draw(t, "steps")
	for i := 0; i < steps; i++ {
		tm := float64(i)
		p := rapid.IntRange(0, np-1).Draw(t, "p")
		switch rapid.IntRange(0, 5).Draw(t, "kind") {
		case 0:
			b.Internal(tm, procs[p])
		case 1, 2:
			b.Checkpoint(tm, procs[p])
		case 3:
			if np > 1 {
				q := rapid.IntRange(0, np-2).Draw(t, "to")
				if q >= p {
					q++
				}
				id := fmt.Sprintf("m%d", i)
				b.Send(tm, procs[p], procs[q], id)
				pending = append(pending, msg{id, procs[q]})
			}
		case 4:
			if len(pending) > 0 {
				j := rapid.IntRange(0, len(pending)-1).Draw(t, "recv")
				b.Recv(tm, pending[j].to, pending[j].id)
				pending = append(pending[:j], pending[j+1:]...)
			}
		case 5:
			b.Fail(tm, procs[p])
		}
	}
	tr, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// ev is one event of a process as the oracle sees it.
type oev struct {
	idx  int // index in the trace
	kind trace.Kind
	msg  int32
}

// oracleFailure computes the baseline of the fail event at index f by
// the definition, by enumerating every cut: each process at a prefix of
// its events before f that ends at a tick or the initial state (or, for a
// process other than the failed one, all of its events before f).
// It returns each process's position (ops kept) of the greatest
// consistent such cut.
func oracleFailure(tr *trace.Trace, f int) []int {
	np := len(tr.Processes)
	hist := make([][]oev, np)
	for i := 0; i < f; i++ {
		e := tr.Events[i]
		hist[e.P] = append(hist[e.P], oev{i, e.Kind, e.Msg})
	}
	o := int(tr.Events[f].P)
	// Candidate cuts: number of events of the history kept.
	cand := make([][]int, np)
	for p := range hist {
		cand[p] = []int{0}
		for k, e := range hist[p] {
			if e.kind == trace.Checkpoint {
				cand[p] = append(cand[p], k+1)
			}
		}
		// The failed process starts from its latest tick, the others
		// from their state just before the failure.
		if p != o {
			cand[p] = append(cand[p], len(hist[p]))
		}
	}
	inCut := func(cut []int, p int, idx int) bool {
		for k := 0; k < cut[p]; k++ {
			if hist[p][k].idx == idx {
				return true
			}
		}
		return false
	}
	best := make([]int, np)
	cut := make([]int, np)
	var rec func(p int)
	rec = func(p int) {
		if p == np {
			for q := range hist {
				for k := 0; k < cut[q]; k++ {
					e := hist[q][k]
					if e.kind != trace.Recv {
						continue
					}
					s := int(tr.Messages[e.msg].Send)
					if !inCut(cut, int(tr.Events[s].P), s) {
						return
					}
				}
			}
			for q := range cut {
				best[q] = max(best[q], cut[q])
			}
			return
		}
		for _, c := range cand[p] {
			cut[p] = c
			rec(p + 1)
		}
	}
	rec(0)
	pos := make([]int, np)
	for p := range hist {
		for k := 0; k < best[p]; k++ {
			if hist[p][k].kind.IsOp() {
				pos[p]++
			}
		}
	}
	return pos
}

// TestUncoordinatedOracle checks the baseline lines against the greatest
// consistent cut found by enumeration over the raw trace.
func TestUncoordinatedOracle(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tr := genTrace(t)
		got, err := Uncoordinated(tr)
		if err != nil {
			t.Fatal(err)
		}
		k := 0
		undone := 0
		for f, e := range tr.Events {
			if e.Kind != trace.Fail {
				continue
			}
			want := oracleFailure(tr, f)
			line := got.Line[k].Line
			k++
			for p, w := range want {
				if int(line[p].Pos) != w {
					t.Fatalf("failure at event %d: %s at %d, oracle %v", f, tr.Processes[p], line[p].Pos, want)
				}
				undone += line[p].Undone
			}
		}
		if k != len(got.Line) {
			t.Fatalf("%d failure lines for %d fail events", len(got.Line), k)
		}
		if n := uselessOracle(tr); n != got.Useless {
			t.Fatalf("useless %d, Z-path search finds %d", got.Useless, n)
		}
		if undone != got.Undone {
			t.Fatalf("undone %d, lines sum to %d", got.Undone, undone)
		}
	})
}

// uselessOracle counts ticks on a Z-cycle by searching Z-paths over the
// trace's received messages, intervals counted from the events.
func uselessOracle(tr *trace.Trace) int {
	interval := func(i int) int { // ticks of its process before event i
		n := 0
		for j := 0; j < i; j++ {
			if tr.Events[j].P == tr.Events[i].P && tr.Events[j].Kind == trace.Checkpoint {
				n++
			}
		}
		return n
	}
	type zm struct{ from, si, to, ri int }
	var msgs []zm
	for _, m := range tr.Messages {
		if m.Recv != trace.None {
			msgs = append(msgs, zm{int(tr.Events[m.Send].P), interval(int(m.Send)), int(tr.Events[m.Recv].P), interval(int(m.Recv))})
		}
	}
	n := 0
	for i, e := range tr.Events {
		if e.Kind != trace.Checkpoint {
			continue
		}
		p, x := int(e.P), interval(i)+1
		seen := make([]bool, len(msgs))
		var queue []int
		for j, m := range msgs {
			if m.from == p && m.si >= x {
				seen[j] = true
				queue = append(queue, j)
			}
		}
		for len(queue) > 0 {
			a := msgs[queue[0]]
			queue = queue[1:]
			if a.to == p && a.ri < x {
				n++
				break
			}
			for j, b := range msgs {
				if !seen[j] && b.from == a.to && b.si >= a.ri {
					seen[j] = true
					queue = append(queue, j)
				}
			}
		}
	}
	return n
}
