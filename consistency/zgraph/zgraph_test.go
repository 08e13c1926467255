package zgraph

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckpt-dev/ckpt/rline"
)

// zigzag builds the classic domino pattern over two processes with n
// rounds: P1 ticks, sends x_k to P0, P0 receives it and ticks, sends y_k
// to P1, P1 receives it. Every tick but P1's first lies on a Z-cycle.
func zigzag(n int32) ([]int32, []Msg) {
	var msgs []Msg
	for k := int32(1); k <= n; k++ {
		msgs = append(msgs,
			Msg{From: 1, FromInterval: k, To: 0, ToInterval: k - 1}, // x_k
			Msg{From: 0, FromInterval: k, To: 1, ToInterval: k},     // y_k
		)
	}
	return []int32{n + 1, n + 1}, msgs
}

func TestUseless(t *testing.T) {
	zc, zm := zigzag(3)
	tests := []struct {
		name   string
		counts []int32
		msgs   []Msg
		want   []Checkpoint
	}{
		{"no messages", []int32{3, 2}, nil, nil},
		{"single process", []int32{4}, nil, nil},
		// P0 sends after its checkpoint 1, P1 receives before its 1
		// and answers after it; P0 receives the answer before its 1:
		// C(0,1) is on the Z-cycle m0 m1.
		{"two-message cycle", []int32{2, 2}, []Msg{
			{From: 0, FromInterval: 1, To: 1, ToInterval: 0},
			{From: 1, FromInterval: 0, To: 0, ToInterval: 0},
		}, []Checkpoint{{0, 1}}},
		// The answer is sent before the receipt, in the same interval:
		// still a Z-path (that is what makes it a Z and not a causal
		// path).
		{"non-causal Z-cycle", []int32{2, 2}, []Msg{
			{From: 1, FromInterval: 0, To: 0, ToInterval: 0},
			{From: 0, FromInterval: 1, To: 1, ToInterval: 0},
		}, []Checkpoint{{0, 1}}},
		// The answer leaves in an earlier interval than the receipt:
		// no Z-path back.
		{"answer too early", []int32{2, 2}, []Msg{
			{From: 0, FromInterval: 1, To: 1, ToInterval: 1},
			{From: 1, FromInterval: 0, To: 0, ToInterval: 0},
		}, nil},
		{"zigzag", zc, zm, []Checkpoint{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}}},
		// Three processes around a ring.
		{"ring", []int32{2, 2, 2}, []Msg{
			{From: 0, FromInterval: 1, To: 1, ToInterval: 0},
			{From: 1, FromInterval: 0, To: 2, ToInterval: 0},
			{From: 2, FromInterval: 0, To: 0, ToInterval: 0},
		}, []Checkpoint{{0, 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := graphOf(tc.counts, tc.msgs)
			if err != nil {
				t.Fatal(err)
			}
			got := g.UselessList()
			if !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
				t.Fatalf("useless = %v, want %v", got, tc.want)
			}
			if g.UselessCount() != len(tc.want) {
				t.Fatalf("count = %d, want %d", g.UselessCount(), len(tc.want))
			}
			for _, c := range tc.want {
				if err := checkCycle(tc.msgs, c, g.Cycle(c.P, c.X)); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestDeep runs a long zigzag: components spanning hundreds of thousands
// of nodes must not overflow a stack (Tarjan is iterative).
func TestDeep(t *testing.T) {
	n := int32(100_000)
	if testing.Short() {
		n = 20_000
	}
	counts, msgs := zigzag(n)
	g, err := graphOf(counts, msgs)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := g.UselessCount(), int(2*n-1); got != want {
		t.Fatalf("useless %d, want %d", got, want)
	}
	if g.Useless(1, 1) || !g.Useless(0, n) || !g.Useless(1, n) {
		t.Fatal("wrong checkpoints useless")
	}
	if err := checkCycle(msgs, Checkpoint{0, n}, g.Cycle(0, n)); err != nil {
		t.Fatal(err)
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name   string
		counts []int32
		msgs   []Msg
	}{
		{"no initial checkpoint", []int32{0}, nil},
		{"unknown sender", []int32{1, 1}, []Msg{{From: 2, To: 0}}},
		{"negative receiver", []int32{1, 1}, []Msg{{From: 0, To: -1}}},
		{"receipt before the initial checkpoint", []int32{2, 1}, []Msg{{From: 0, To: 1, ToInterval: -2}}}, // -1 is unreceived
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := graphOf(tc.counts, tc.msgs); err == nil {
				t.Fatal("no error")
			}
			nums := make([][]int32, len(tc.counts))
			for p, n := range tc.counts {
				nums[p] = make([]int32, n)
			}
			if _, err := snLinesOf(nums, tc.msgs); err == nil {
				t.Fatal("SnLines: no error")
			}
		})
	}
}

// checkCycle verifies by the definition that cyc is a Z-cycle through c.
func checkCycle(msgs []Msg, c Checkpoint, cyc []int32) error {
	if len(cyc) == 0 {
		return fmt.Errorf("no cycle for %v", c)
	}
	first, last := msgs[cyc[0]], msgs[cyc[len(cyc)-1]]
	if first.From != c.P || first.FromInterval < c.X {
		return fmt.Errorf("cycle %v for %v: first message %+v not sent after it", cyc, c, first)
	}
	if last.To != c.P || last.ToInterval >= c.X {
		return fmt.Errorf("cycle %v for %v: last message %+v not received before it", cyc, c, last)
	}
	for i := 1; i < len(cyc); i++ {
		a, b := msgs[cyc[i-1]], msgs[cyc[i]]
		if b.From != a.To || b.FromInterval < a.ToInterval {
			return fmt.Errorf("cycle %v for %v: %+v does not follow %+v", cyc, c, b, a)
		}
	}
	return nil
}

// zcycleOracle decides by the definition whether a Z-path leads from
// C(p,x) back to itself: a search over Z-path prefixes, where a prefix is
// summed up by its last message.
func zcycleOracle(msgs []Msg, p, x int32) bool {
	seen := make([]bool, len(msgs))
	var queue []int
	for i, m := range msgs {
		if m.From == p && m.FromInterval >= x {
			seen[i] = true
			queue = append(queue, i)
		}
	}
	for len(queue) > 0 {
		a := msgs[queue[0]]
		queue = queue[1:]
		if a.To == p && a.ToInterval < x {
			return true
		}
		for j, b := range msgs {
			if !seen[j] && b.From == a.To && b.FromInterval >= a.ToInterval {
				seen[j] = true
				queue = append(queue, j)
			}
		}
	}
	return false
}

// inConsistentCut decides by enumeration whether some consistent global
// checkpoint holds C(p,x), each other process at one of its checkpoints
// or its current state (Netzer–Xu: possible iff C(p,x) is on no Z-cycle).
func inConsistentCut(counts []int32, msgs []Msg, p, x int32) bool {
	cut := make([]int32, len(counts))
	var rec func(q int) bool
	rec = func(q int) bool {
		if q == len(counts) {
			ok, _ := Consistent(msgs, cut)
			return ok
		}
		if int32(q) == p {
			cut[q] = x
			return rec(q + 1)
		}
		for v := int32(0); v <= counts[q]; v++ {
			cut[q] = v
			if rec(q + 1) {
				return true
			}
		}
		return false
	}
	return rec(0)
}

func genInput(t *rapid.T) ([]int32, []Msg) {
	np := rapid.IntRange(1, 4).Draw(t, "procs")
	counts := make([]int32, np)
	for p := range counts {
		counts[p] = int32(rapid.IntRange(1, 4).Draw(t, fmt.Sprintf("ckpts%d", p)))
	}
	var msgs []Msg
	if np > 1 {
		nm := rapid.IntRange(0, 12).Draw(t, "msgs")
		for i := 0; i < nm; i++ {
			a := int32(rapid.IntRange(0, np-1).Draw(t, "from"))
			b := int32(rapid.IntRange(0, np-2).Draw(t, "to"))
			if b >= a {
				b++
			}
			msgs = append(msgs, Msg{
				From: a, FromInterval: int32(rapid.IntRange(0, int(counts[a])-1).Draw(t, "si")),
				To: b, ToInterval: int32(rapid.IntRange(0, int(counts[b])-1).Draw(t, "ri")),
			})
		}
	}
	return counts, msgs
}

// TestUselessOracle compares the linear-time answer with a search over
// Z-paths and with Netzer–Xu's characterisation by consistent cuts.
func TestUselessOracle(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		counts, msgs := genInput(t)
		g, err := graphOf(counts, msgs)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for p := range counts {
			for x := int32(0); x < counts[p]; x++ {
				want := zcycleOracle(msgs, int32(p), x)
				if got := g.Useless(int32(p), x); got != want {
					t.Fatalf("C(%d,%d): useless = %v, Z-path search says %v", p, x, got, want)
				}
				if inConsistentCut(counts, msgs, int32(p), x) == want {
					t.Fatalf("C(%d,%d): Z-cycle %v but in a consistent cut %v", p, x, want, !want)
				}
				if want {
					n++
					if err := checkCycle(msgs, Checkpoint{int32(p), x}, g.Cycle(int32(p), x)); err != nil {
						t.Fatal(err)
					}
				} else if g.Cycle(int32(p), x) != nil {
					t.Fatalf("C(%d,%d): cycle for a useful checkpoint", p, x)
				}
			}
		}
		if g.UselessCount() != n {
			t.Fatalf("count %d, want %d", g.UselessCount(), n)
		}
	})
}

func TestConsistent(t *testing.T) {
	msgs := []Msg{{From: 0, FromInterval: 1, To: 1, ToInterval: 0}}
	tests := []struct {
		cut    []int32
		ok     bool
		orphan int
	}{
		{[]int32{0, 0}, true, None},
		{[]int32{1, 0}, true, None},
		{[]int32{2, 1}, true, None}, // current states
		{[]int32{1, 1}, false, 0},   // received before C(1,1), sent after C(0,1)
		{[]int32{0, 2}, false, 0},   // P1 current, P0 at its initial checkpoint
	}
	for _, tc := range tests {
		ok, orphan := Consistent(msgs, tc.cut)
		if ok != tc.ok || orphan != tc.orphan {
			t.Errorf("Consistent(%v) = %v, %d; want %v, %d", tc.cut, ok, orphan, tc.ok, tc.orphan)
		}
	}
}

func TestSnLines(t *testing.T) {
	tests := []struct {
		name    string
		numbers [][]int32
		msgs    []Msg
		want    []SnOrphan
	}{
		// MS-like: P1 takes a forced checkpoint numbered 2 before the
		// receipt of a message sent after P0's checkpoint 2.
		{"forced checkpoint", [][]int32{{0, 2}, {0, 2}}, []Msg{
			{From: 0, FromInterval: 1, To: 1, ToInterval: 1},
		}, nil},
		// Without it, S_1 and S_2 both hold the receipt and not the send.
		{"missing forced checkpoint", [][]int32{{0, 2}, {0}}, []Msg{
			{From: 0, FromInterval: 1, To: 1, ToInterval: 0},
		}, []SnOrphan{{Msg: 0, Lo: 1, Hi: 2}}},
		// A message never received is no edge but keeps its index: the
		// witness names the second message.
		{"unreceived first", [][]int32{{0, 2}, {0}}, []Msg{
			{From: 0, FromInterval: 1, To: 1, ToInterval: rline.None},
			{From: 0, FromInterval: 1, To: 1, ToInterval: 0},
		}, []SnOrphan{{Msg: 1, Lo: 1, Hi: 2}}},
		// Sent before P0's checkpoint: harmless.
		{"old message", [][]int32{{0, 3}, {0}}, []Msg{
			{From: 0, FromInterval: 0, To: 1, ToInterval: 0},
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := snLinesOf(tc.numbers, tc.msgs)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestSnLinesOracle checks every S_n one by one against SnLines' ranges.
func TestSnLinesOracle(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		counts, msgs := genInput(t)
		numbers := make([][]int32, len(counts))
		var max int32
		for p, n := range counts {
			numbers[p] = make([]int32, n)
			for x := int32(1); x < n; x++ {
				numbers[p][x] = numbers[p][x-1] + int32(rapid.IntRange(1, 3).Draw(t, "skip"))
				if numbers[p][x] > max {
					max = numbers[p][x]
				}
			}
		}
		got, err := snLinesOf(numbers, msgs)
		if err != nil {
			t.Fatal(err)
		}
		for n := int32(0); n <= max+1; n++ {
			cut := SnCut(numbers, n)
			var want []int
			for i, m := range msgs {
				if m.ToInterval < cut[m.To] && m.FromInterval >= cut[m.From] {
					want = append(want, i)
				}
			}
			var have []int
			for _, o := range got {
				if o.Lo <= n && n <= o.Hi {
					have = append(have, int(o.Msg))
				}
			}
			if !slices.Equal(have, want) {
				t.Fatalf("S_%d = %v: orphans %v, SnLines says %v", n, cut, want, have)
			}
		}
	})
}

// bigInput is a random history over procs processes with about m
// messages and a tick every ten messages per process on average.
func bigInput(procs, m int) ([]int32, []Msg) {
	counts := make([]int32, procs)
	for p := range counts {
		counts[p] = int32(m/procs/10 + 1)
	}
	msgs := make([]Msg, m)
	x := uint64(0x9E3779B97F4A7C15)
	next := func(n int) int32 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return int32(x % uint64(n))
	}
	for i := range msgs {
		a := next(procs)
		b := (a + 1 + next(procs-1)) % int32(procs)
		// Intervals grow with i so the graph looks like a real run:
		// mostly forward, with local jitter making Z-cycles.
		base := int32(int64(i) * int64(counts[0]-1) / int64(m))
		si := min(counts[a]-1, base+next(2))
		ri := min(counts[b]-1, max(0, base+next(3)-1))
		msgs[i] = Msg{From: a, FromInterval: si, To: b, ToInterval: ri}
	}
	return counts, msgs
}

func BenchmarkNew1M(b *testing.B) {
	counts, msgs := bigInput(16, 1_000_000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := graphOf(counts, msgs); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSnLines1M(b *testing.B) {
	counts, msgs := bigInput(16, 1_000_000)
	numbers := make([][]int32, len(counts))
	for p, n := range counts {
		numbers[p] = make([]int32, n)
		for x := range numbers[p] {
			numbers[p][x] = int32(x)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := snLinesOf(numbers, msgs); err != nil {
			b.Fatal(err)
		}
	}
}

// Consistent reports whether the cut — cut[p] the index of one checkpoint
// of each process p, or n_p for its current state after the last one — is
// a consistent global checkpoint: no message is received before the
// receiver's cut checkpoint and sent after the sender's. When it is not,
// orphan is the index of the first message that breaks it, else None.
// Messages naming a process outside cut are ignored.
func Consistent(msgs []Msg, cut []int32) (ok bool, orphan int) {
	np := int32(len(cut))
	for i, m := range msgs {
		if m.From < 0 || m.From >= np || m.To < 0 || m.To >= np {
			continue
		}
		if m.ToInterval < cut[m.To] && m.FromInterval >= cut[m.From] {
			return false, i
		}
	}
	return true, None
}

// SnCut returns S_n as a cut for Consistent: per process the index of its
// earliest checkpoint numbered ≥ n, or len(numbers[p]) (its current state)
// if it has none.
func SnCut(numbers [][]int32, n int32) []int32 {
	cut := make([]int32, len(numbers))
	for p, ns := range numbers {
		cut[p] = int32(len(ns))
		for x, v := range ns {
			if v >= n {
				cut[p] = int32(x)
				break
			}
		}
	}
	return cut
}

// snLinesOf is Graph.SnLines over checkpoints numbered numbers and
// messages given by their intervals.
func snLinesOf(numbers [][]int32, msgs []Msg) ([]SnOrphan, error) {
	counts := make([]int32, len(numbers))
	for p, ns := range numbers {
		counts[p] = int32(len(ns))
	}
	g, err := graphOf(counts, msgs)
	if err != nil {
		return nil, err
	}
	return g.SnLines(numbers)
}

// Msg is one message by its intervals: sent by process From in its
// interval FromInterval, received by process To in its interval
// ToInterval.
type Msg struct {
	From, FromInterval int32
	To, ToInterval     int32
}

// graphOf is New over processes with counts[p] checkpoints each (the
// initial one included) and messages given by their intervals: the
// checkpoints at positions 0, 1, …, and each op at its interval's
// position.
func graphOf(counts []int32, msgs []Msg) (*Graph, error) {
	ckpts := make([][]int32, len(counts))
	for p, n := range counts {
		for x := int32(0); x < n; x++ {
			ckpts[p] = append(ckpts[p], x)
		}
	}
	ops := make([]rline.Msg, len(msgs))
	for i, m := range msgs {
		ops[i] = rline.Msg{From: m.From, SendOp: m.FromInterval, To: m.To, RecvOp: m.ToInterval}
	}
	return New(ckpts, ops)
}
