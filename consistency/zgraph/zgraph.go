// Package zgraph judges checkpoint and communication patterns: it finds
// useless checkpoints — those on a Z-cycle (Netzer and Xu 1995) — in time
// linear in checkpoints plus messages, checks the S_n lines of SPEC §4.1,
// and checks rollback-dependency trackability (CheckRDT, rdt.go).
//
// Its input is a pattern as package rline takes one — checkpoint
// positions per process and messages by their ops — so the checker can
// feed it a run's final live history and the baseline a trace's timer
// ticks. The model: process p has checkpoints 0 … n_p−1, 0 being the
// initial one; interval x of p is every event after checkpoint x and
// before checkpoint x+1 (the last interval is open: everything after the
// last checkpoint). A message is sent in an interval of its sender and
// received in an interval of its receiver.
//
// Method (proved in docs/analyses.md): one graph node N(p,x) per
// checkpoint, an edge N(p,x)→N(p,x+1) for program order and an edge
// N(a,s)→N(b,r) for each message sent in a's interval s and received in
// b's interval r. A Z-path from C(a,i) to C(b,j) exists iff N(b,j−1) is
// reachable from N(a,i) by a path using a message edge, so C(p,x), x ≥ 1,
// lies on a Z-cycle iff N(p,x−1) and N(p,x) are in one strongly connected
// component.
package zgraph

import (
	"fmt"
	"slices"

	"github.com/ckpt-dev/ckpt/rline"
)

// None marks an absent index, as trace.None does.
const None = -1

// Checkpoint names checkpoint X of process P.
type Checkpoint struct {
	P, X int32
}

// Graph is the checkpoint graph of one pattern with its strongly
// connected components computed.
type Graph struct {
	// Msgs are the messages given to New, in their order: Cycle and
	// SnLines index them, and Interval places their ops.
	Msgs  []rline.Msg
	ckpts [][]int32
	// base[p] is the node of C(p,0); node of C(p,x) is base[p]+x.
	base []int32
	// comp[v] is v's strongly connected component.
	comp []int32
	// Edges in CSR form, kept for Cycle: adj[off[v]:off[v+1]] are the
	// targets of v's message edges and emsg the message index of each.
	off, adj, emsg []int32
	useless        []Checkpoint // by process, then index
}

// New builds the checkpoint graph of a pattern and finds its useless
// checkpoints. ckpts[p] are the positions of p's checkpoints (ops
// completed when taken), in the order taken, the initial one at 0 first;
// a message names its ops (rline.Msg). Messages never received take no
// part in Z-paths (nor in S_n lines) but keep their index in Msgs. The
// slices are kept, not
// copied. It returns an error, never panics, when a process has no
// checkpoint or a message names a process out of range or an op before
// the initial checkpoint.
func New(ckpts [][]int32, msgs []rline.Msg) (*Graph, error) {
	g := &Graph{Msgs: msgs, ckpts: ckpts, base: make([]int32, len(ckpts)+1)}
	var total int64
	for p, cs := range ckpts {
		if len(cs) == 0 {
			return nil, fmt.Errorf("zgraph: process %d has no checkpoint, want at least the initial one", p)
		}
		if total+int64(len(cs)) > 1<<31-2 {
			return nil, fmt.Errorf("zgraph: too many checkpoints")
		}
		g.base[p] = int32(total)
		total += int64(len(cs))
	}
	g.base[len(ckpts)] = int32(total)
	// Message edges in CSR form by a counting sort on the source node;
	// program-order edges are implicit (v→v+1 within a process). A
	// message never received is no edge, but keeps its index: witnesses
	// name messages by their place in msgs.
	nv := int(total)
	src := make([]int32, len(g.Msgs))
	g.off = make([]int32, nv+1)
	edges := 0
	for i, m := range g.Msgs {
		if m.RecvOp == rline.None {
			continue
		}
		edges++
		from, to := g.Interval(m.From, m.SendOp), g.Interval(m.To, m.RecvOp)
		if from < 0 || to < 0 {
			return nil, fmt.Errorf("zgraph: message %d: process out of range or op before the initial checkpoint", i)
		}
		src[i] = g.base[m.From] + from
		g.off[src[i]+1]++
	}
	for v := 0; v < nv; v++ {
		g.off[v+1] += g.off[v]
	}
	g.adj, g.emsg = make([]int32, edges), make([]int32, edges)
	fill := slices.Clone(g.off[:nv])
	for i, m := range g.Msgs {
		if m.RecvOp == rline.None {
			continue
		}
		s := src[i]
		g.adj[fill[s]], g.emsg[fill[s]] = g.base[m.To]+g.Interval(m.To, m.RecvOp), int32(i)
		fill[s]++
	}
	g.comp = g.tarjan()
	for p := range ckpts {
		for v := g.base[p] + 1; v < g.base[p+1]; v++ {
			if g.comp[v] == g.comp[v-1] {
				g.useless = append(g.useless, Checkpoint{int32(p), v - g.base[p]})
			}
		}
	}
	return g, nil
}

// Interval returns the interval op of process p lies in: the index of
// p's last checkpoint at a position ≤ op (checkpoint at pos x precedes
// op x); None for a process out of range or an op before the initial
// checkpoint.
func (g *Graph) Interval(p, op int32) int32 {
	if p < 0 || int(p) >= len(g.ckpts) {
		return None
	}
	return interval(g.ckpts[p], op)
}

// interval returns the index of the last of the checkpoint positions cs
// (non-decreasing) that is ≤ op, or None.
func interval(cs []int32, op int32) int32 {
	i, _ := slices.BinarySearch(cs, op+1) // the first checkpoint after op
	return int32(i - 1)
}

// tarjan computes the strongly connected components, iteratively: a
// graph of 10^7 nodes would overflow recursion. call is the walk's own
// stack; cursor[v] is v's next edge: k < deg its message edge off[v]+k,
// k == deg its program-order edge to v+1, which a process's last
// checkpoint lacks (last).
func (g *Graph) tarjan() []int32 {
	nv := int32(len(g.off) - 1)
	index, comp := slices.Repeat([]int32{None}, int(nv)), slices.Repeat([]int32{None}, int(nv))
	low, cursor := make([]int32, nv), make([]int32, nv)
	onStack, last := make([]bool, nv), make([]bool, nv)
	for p := 1; p < len(g.base); p++ {
		if g.base[p] > g.base[p-1] {
			last[g.base[p]-1] = true
		}
	}
	stack, call := make([]int32, 0, 64), make([]int32, 0, 64)
	counter, ncomp := int32(0), int32(0)
	for root := range nv {
		for w := root; w != None && index[w] == None; {
			// Enter w: number it and put it on both stacks.
			index[w], low[w] = counter, counter
			counter++
			stack, call = append(stack, w), append(call, w)
			onStack[w] = true
			// Follow the edges of the node on top of the walk to one not
			// visited yet (the next w), finishing those whose edges are done.
			for w = None; w == None && len(call) > 0; {
				v := call[len(call)-1]
				deg := g.off[v+1] - g.off[v]
				switch k := cursor[v]; {
				case k < deg:
					w = g.adj[g.off[v]+k]
				case k == deg && !last[v]:
					w = v + 1
				default:
					// v's edges are done: pop its component if it is the
					// root, and pass its low to its caller.
					call = call[:len(call)-1]
					if low[v] == index[v] {
						for x := int32(None); x != v; {
							x = stack[len(stack)-1]
							stack = stack[:len(stack)-1]
							onStack[x], comp[x] = false, ncomp
						}
						ncomp++
					}
					if len(call) > 0 {
						u := call[len(call)-1]
						low[u] = min(low[u], low[v])
					}
					continue
				}
				cursor[v]++
				if index[w] != None {
					if onStack[w] {
						low[v] = min(low[v], index[w])
					}
					w = None
				}
			}
		}
	}
	return comp
}

// Useless reports whether checkpoint x of process p lies on a Z-cycle.
// The initial checkpoint (x = 0) never does; out-of-range arguments report
// false.
func (g *Graph) Useless(p, x int32) bool {
	if p < 0 || int(p) >= len(g.base)-1 || x < 1 || x >= g.base[p+1]-g.base[p] {
		return false
	}
	v := g.base[p] + x
	return g.comp[v] == g.comp[v-1]
}

// UselessCount returns the number of useless checkpoints.
func (g *Graph) UselessCount() int { return len(g.useless) }

// UselessList returns every useless checkpoint, by process then index.
func (g *Graph) UselessList() []Checkpoint { return slices.Clone(g.useless) }

// Cycle returns a Z-cycle through checkpoint x of process p, as indexes
// into the messages given to New in Z-path order: the first is sent by p
// in interval x or later, each next one is sent by the previous one's
// receiver in the interval it was received in or a later one, and the last
// is received by p before checkpoint x. It returns nil when the
// checkpoint is not useless. The search is a breadth-first search
// confined to the checkpoint's component, so the cycle has the fewest
// graph steps. Each call costs O(size of the component): meant for a
// bounded number of witnesses, not for every checkpoint of a big run.
func (g *Graph) Cycle(p, x int32) []int32 {
	if !g.Useless(p, x) {
		return nil
	}
	src := g.base[p] + x
	dst, c := src-1, g.comp[src]
	// from[v] is the node the search came to v from and the message edge
	// it took (None for program order). A map keeps the cost
	// proportional to the component, not to the whole graph.
	type step struct{ node, msg int32 }
	from := map[int32]step{src: {None, None}}
	for queue := []int32{src}; len(queue) > 0 && queue[0] != dst; queue = queue[1:] {
		v := queue[0]
		// v's message edges, then (k == off[v+1]) its program-order edge,
		// unless v is its process's last checkpoint.
		for k := g.off[v]; k <= g.off[v+1]; k++ {
			w, m := v+1, int32(None)
			if k < g.off[v+1] {
				w, m = g.adj[k], g.emsg[k]
			} else if _, last := slices.BinarySearch(g.base[1:], v+1); last {
				break
			}
			if _, seen := from[w]; !seen && g.comp[w] == c {
				from[w] = step{v, m}
				queue = append(queue, w)
			}
		}
	}
	var rev []int32
	for v := dst; v != src; v = from[v].node {
		if m := from[v].msg; m != None {
			rev = append(rev, m)
		}
	}
	slices.Reverse(rev)
	return rev
}

// SnOrphan says that S_n is inconsistent for every n in [Lo, Hi] because
// of message Msg (an index into Graph.Msgs): S_n holds its receipt but
// not its send.
type SnOrphan struct {
	Msg    int32
	Lo, Hi int32
}

// SnLines checks the MS theorem of SPEC §4.1 for every n at once: S_n is
// each process's earliest checkpoint numbered ≥ n, or its current state
// if it has none, and every S_n must be consistent. numbers[p][x] is the
// number (sn) of checkpoint x of process p, one per checkpoint of the
// graph. It returns, in message order, every message that makes some S_n
// inconsistent and the range of such n; none means every S_n is
// consistent. Cost: O(checkpoints + messages), whatever the largest
// number.
//
// A message sent in a's interval s and received in b's interval r is an
// orphan of S_n iff S_n's checkpoint of b is after interval r (every
// checkpoint up to r is numbered < n) and S_n's checkpoint of a is at or
// before interval s (some checkpoint up to s is numbered ≥ n), i.e. iff
// max(numbers[b][0..r]) < n ≤ max(numbers[a][0..s]). Prefix maxima make
// this exact even when a faulty run's numbers do not increase.
func (g *Graph) SnLines(numbers [][]int32) ([]SnOrphan, error) {
	if len(numbers) != len(g.base)-1 {
		return nil, fmt.Errorf("zgraph: numbers for %d processes, not %d", len(numbers), len(g.base)-1)
	}
	pmax := make([][]int32, len(numbers))
	for p, ns := range numbers {
		if n := g.base[p+1] - g.base[p]; int32(len(ns)) != n {
			return nil, fmt.Errorf("zgraph: process %d: %d numbers for %d checkpoints", p, len(ns), n)
		}
		pm := slices.Clone(ns)
		for x := 1; x < len(pm); x++ {
			pm[x] = max(pm[x], pm[x-1])
		}
		pmax[p] = pm
	}
	var out []SnOrphan
	for i, m := range g.Msgs {
		if m.RecvOp == rline.None {
			continue
		}
		lo := pmax[m.To][g.Interval(m.To, m.RecvOp)] + 1
		hi := pmax[m.From][g.Interval(m.From, m.SendOp)]
		if lo <= hi {
			out = append(out, SnOrphan{Msg: int32(i), Lo: lo, Hi: hi})
		}
	}
	return out, nil
}
