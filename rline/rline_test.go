package rline

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// zigzag is the domino pattern over two processes with n rounds: P1
// ticks, sends x_k to P0, P0 receives it and ticks, sends y_k to P1, P1
// receives it. Each round is two ops per process.
func zigzag(n int32) (ckpts [][]int32, msgs []Msg) {
	ckpts = [][]int32{{0}, {0}}
	for k := int32(0); k < n; k++ {
		ckpts[1] = append(ckpts[1], 2*k)
		ckpts[0] = append(ckpts[0], 2*k+1)
		msgs = append(msgs,
			Msg{From: 1, SendOp: 2 * k, To: 0, RecvOp: 2 * k},
			Msg{From: 0, SendOp: 2*k + 1, To: 1, RecvOp: 2*k + 1},
		)
	}
	return ckpts, msgs
}

func TestLine(t *testing.T) {
	zc, zm := zigzag(3)
	tests := []struct {
		name           string
		ckpts          [][]int32
		msgs           []Msg
		start, current []int32
		want           []Entry
	}{
		{
			// P0 restarts at position 5 and forgets y_3, which P1
			// received: the rollback dominoes to the initial states.
			name: "zigzag domino", ckpts: zc, msgs: zm,
			start: []int32{5, 6}, current: []int32{6, 6},
			want: []Entry{
				{Pos: 0, Ckpt: 0, Moved: true, Undone: 6},
				{Pos: 0, Ckpt: 1, Moved: true, Undone: 6},
			},
		},
		{
			// Failure after the first round only: P1's tick at
			// position 0 stops it.
			name: "zigzag one round", ckpts: zc, msgs: zm[:2],
			start: []int32{1, 2}, current: []int32{2, 2},
			want: []Entry{
				{Pos: 0, Ckpt: 0, Moved: true, Undone: 2},
				{Pos: 0, Ckpt: 1, Moved: true, Undone: 2},
			},
		},
		{
			name:  "no orphan",
			ckpts: [][]int32{{0, 2}, {0}},
			msgs:  []Msg{{From: 0, SendOp: 1, To: 1, RecvOp: 0}},
			start: []int32{2, 3}, current: []int32{4, 3},
			want: []Entry{
				{Pos: 2, Ckpt: 1, Undone: 2},
				{Pos: 3, Ckpt: None, Undone: 0},
			},
		},
		{
			// The receiver goes to its latest checkpoint before the
			// receipt, not to its initial one; the message it sent
			// after that checkpoint was received after P0's line.
			name:  "one step",
			ckpts: [][]int32{{0, 1}, {0, 1, 3}},
			msgs: []Msg{
				{From: 0, SendOp: 1, To: 1, RecvOp: 2},
				{From: 1, SendOp: 1, To: 0, RecvOp: 2},
			},
			start: []int32{1, 4}, current: []int32{3, 4},
			want: []Entry{
				{Pos: 1, Ckpt: 1, Undone: 2},
				{Pos: 1, Ckpt: 1, Moved: true, Undone: 3},
			},
		},
		{
			// A message received after the failure instant takes no
			// part, even though its send is undone.
			name:  "received later",
			ckpts: [][]int32{{0}, {0}},
			msgs:  []Msg{{From: 0, SendOp: 0, To: 1, RecvOp: 1}, {From: 0, SendOp: 1, To: 1, RecvOp: None}},
			start: []int32{0, 1}, current: []int32{2, 1},
			want: []Entry{
				{Pos: 0, Ckpt: 0, Undone: 2},
				{Pos: 1, Ckpt: None, Undone: 0},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := New(tc.ckpts, tc.msgs)
			if err != nil {
				t.Fatal(err)
			}
			got, err := g.Line(tc.start, tc.current)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name           string
		ckpts          [][]int32
		msgs           []Msg
		start, current []int32
	}{
		{"no initial checkpoint", [][]int32{{}}, nil, nil, nil},
		{"initial not at 0", [][]int32{{1}}, nil, nil, nil},
		{"decreasing checkpoints", [][]int32{{0, 3, 2}}, nil, nil, nil},
		{"unknown process", [][]int32{{0}}, []Msg{{From: 0, To: 1}}, nil, nil},
		{"negative send", [][]int32{{0}, {0}}, []Msg{{From: 0, SendOp: -1, To: 1}}, nil, nil},
		{"negative receive", [][]int32{{0}, {0}}, []Msg{{From: 0, To: 1, RecvOp: -3}}, nil, nil},
		{"wrong length", [][]int32{{0}, {0}}, nil, []int32{0}, []int32{0, 0}},
		{"start after current", [][]int32{{0}}, nil, []int32{2}, []int32{1}},
		{"negative start", [][]int32{{0}}, nil, []int32{-1}, []int32{1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := New(tc.ckpts, tc.msgs)
			if err == nil {
				_, err = g.Line(tc.start, tc.current)
			}
			if err == nil {
				t.Fatal("no error")
			}
		})
	}
}

// history is a random execution: ops, checkpoint positions and messages
// per process, over a global order of steps.
func genHistory(t *rapid.T) (ckpts [][]int32, msgs []Msg, current []int32) {
	np := rapid.IntRange(1, 4).Draw(t, "procs")
	ckpts = make([][]int32, np)
	for p := range ckpts {
		ckpts[p] = []int32{0}
	}
	ops := make([]int32, np)
	var pending []int // messages sent, not yet received
	steps := rapid.IntRange(0, 24).Draw(t, "steps")
	for i := 0; i < steps; i++ {
		p := int32(rapid.IntRange(0, np-1).Draw(t, "p"))
		switch rapid.IntRange(0, 3).Draw(t, "kind") {
		case 0:
			ops[p]++
		case 1:
			ckpts[p] = append(ckpts[p], ops[p])
		case 2:
			if np > 1 {
				q := int32(rapid.IntRange(0, np-2).Draw(t, "to"))
				if q >= p {
					q++
				}
				msgs = append(msgs, Msg{From: p, SendOp: ops[p], To: q, RecvOp: None})
				pending = append(pending, len(msgs)-1)
				ops[p]++
			}
		case 3:
			for j, mi := range pending {
				if msgs[mi].To == p {
					msgs[mi].RecvOp = ops[p]
					ops[p]++
					pending = append(pending[:j], pending[j+1:]...)
					break
				}
			}
		}
	}
	return ckpts, msgs, ops
}

// maxCut finds by enumeration the componentwise maximum consistent cut
// where each process is at its start or at a checkpoint at or before it.
func maxCut(ckpts [][]int32, msgs []Msg, start []int32) ([]int32, error) {
	np := len(ckpts)
	cand := make([][]int32, np)
	for p := range ckpts {
		cand[p] = []int32{start[p]}
		for _, c := range ckpts[p] {
			if c <= start[p] {
				cand[p] = append(cand[p], c)
			}
		}
	}
	best := make([]int32, np)
	for p := range best {
		best[p] = -1
	}
	var consistent [][]int32
	cut := make([]int32, np)
	var rec func(p int)
	rec = func(p int) {
		if p == np {
			for _, m := range msgs {
				if m.RecvOp != None && m.RecvOp < cut[m.To] && m.SendOp >= cut[m.From] {
					return
				}
			}
			consistent = append(consistent, slices.Clone(cut))
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
	for _, c := range consistent {
		if slices.Equal(c, best) {
			return best, nil
		}
	}
	return nil, fmt.Errorf("componentwise maximum %v is not itself consistent", best)
}

// TestLineOracle checks the propagation against every cut on small random
// histories with random bounds.
func TestLineOracle(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ckpts, msgs, current := genHistory(t)
		start := slices.Clone(current)
		for p := range start {
			if rapid.Bool().Draw(t, "bound") {
				start[p] = int32(rapid.IntRange(0, int(current[p])).Draw(t, "start"))
			}
		}
		g, err := New(ckpts, msgs)
		if err != nil {
			t.Fatal(err)
		}
		line, err := g.Line(start, current)
		if err != nil {
			t.Fatal(err)
		}
		want, err := maxCut(ckpts, msgs, start)
		if err != nil {
			t.Fatal(err)
		}
		for p, e := range line {
			if e.Pos != want[p] {
				t.Fatalf("P%d at %d, maximum consistent cut %v", p, e.Pos, want)
			}
			if e.Undone != current[p]-e.Pos {
				t.Fatalf("P%d: undone %d, current %d, pos %d", p, e.Undone, current[p], e.Pos)
			}
			if e.Moved != (e.Pos < start[p]) {
				t.Fatalf("P%d: moved %v from %d to %d", p, e.Moved, start[p], e.Pos)
			}
			if e.Ckpt != None && ckpts[p][e.Ckpt] != e.Pos {
				t.Fatalf("P%d: checkpoint %d is at %d, not %d", p, e.Ckpt, ckpts[p][e.Ckpt], e.Pos)
			}
			if e.Ckpt == None && (e.Moved || slices.Contains(ckpts[p], e.Pos)) {
				t.Fatalf("P%d: no checkpoint named at %d", p, e.Pos)
			}
		}
	})
}

// bigHistory is a random history over procs processes with m messages,
// each received a little later than sent, and a tick every ten ops.
func bigHistory(procs, m int) (ckpts [][]int32, msgs []Msg, current []int32) {
	x := uint64(0x9E3779B97F4A7C15)
	next := func(n int) int {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return int(x % uint64(n))
	}
	ckpts = make([][]int32, procs)
	for p := range ckpts {
		ckpts[p] = []int32{0}
	}
	ops := make([]int32, procs)
	var inflight []int
	for len(msgs) < m || len(inflight) > 0 {
		p := int32(next(procs))
		switch {
		case len(inflight) > 0 && (len(msgs) >= m || next(2) == 0):
			j := next(len(inflight))
			mi := inflight[j]
			inflight[j] = inflight[len(inflight)-1]
			inflight = inflight[:len(inflight)-1]
			q := msgs[mi].To
			msgs[mi].RecvOp = ops[q]
			ops[q]++
			if ops[q]%10 == 0 {
				ckpts[q] = append(ckpts[q], ops[q])
			}
		default:
			q := (p + 1 + int32(next(procs-1))) % int32(procs)
			msgs = append(msgs, Msg{From: p, SendOp: ops[p], To: q, RecvOp: None})
			inflight = append(inflight, len(msgs)-1)
			ops[p]++
			if ops[p]%10 == 0 {
				ckpts[p] = append(ckpts[p], ops[p])
			}
		}
	}
	return ckpts, msgs, ops
}

func BenchmarkNew1M(b *testing.B) {
	ckpts, msgs, _ := bigHistory(16, 1_000_000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := New(ckpts, msgs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLineDomino1M measures a failure whose rollback dominoes
// through the whole history: P0 restarts from its initial state, and with
// random communication every other process follows almost to the start —
// the worst case, nearly every message examined.
func BenchmarkLineDomino1M(b *testing.B) {
	ckpts, msgs, current := bigHistory(16, 1_000_000)
	g, err := New(ckpts, msgs)
	if err != nil {
		b.Fatal(err)
	}
	start := slices.Clone(current)
	start[0] = 0
	b.ReportAllocs()
	var line []Entry
	for b.Loop() {
		if line, err = g.Line(start, current); err != nil {
			b.Fatal(err)
		}
	}
	var undone int64
	for _, e := range line {
		undone += int64(e.Undone)
	}
	b.ReportMetric(float64(undone), "undone")
}
