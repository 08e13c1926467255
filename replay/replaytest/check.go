package replaytest

import (
	"fmt"
	"math/rand"
	"sort"

	"github.com/ckpt-dev/ckpt/trace"
)

// History is the final live history of a run, recomputed from its events
// alone (restarts and rollbacks truncate a process to their pos), as an
// independent oracle for the engine's and the algorithms' tests.
type History struct {
	// Live[p] lists the seqs of p's live app events, indexed by op.
	Live [][]int32
	// Ckpts[p] lists p's live checkpoints (seqs), oldest first; MS
	// discards the checkpoints after the one a restore names.
	Ckpts [][]int32
	run   *trace.Run
	// sendOf maps (msg, copy) to the seq of the send that copy stands for
	// (for a resend, the send it repeats).
	sendOf map[[2]int32]int32
}

// NewHistory replays the run's records into live histories.
func NewHistory(r *trace.Run) *History {
	n := len(r.Processes)
	h := &History{Live: make([][]int32, n), Ckpts: make([][]int32, n), run: r, sendOf: map[[2]int32]int32{}}
	for i := range r.Events {
		e := &r.Events[i]
		switch e.Kind {
		case trace.Send:
			if e.Resend {
				h.sendOf[[2]int32{e.Msg, e.Copy}] = h.sendOf[[2]int32{e.Msg, e.Of}]
				continue
			}
			h.sendOf[[2]int32{e.Msg, e.Copy}] = e.Seq
			h.Live[e.P] = append(h.Live[e.P], e.Seq)
		case trace.Recv, trace.Internal:
			h.Live[e.P] = append(h.Live[e.P], e.Seq)
		case trace.Checkpoint:
			h.Ckpts[e.P] = append(h.Ckpts[e.P], e.Seq)
		case trace.Restart, trace.Rollback:
			if int(e.Pos) < len(h.Live[e.P]) {
				h.Live[e.P] = h.Live[e.P][:e.Pos]
			}
			cs := h.Ckpts[e.P]
			k := 0
			for k < len(cs) && r.Events[cs[k]].Ckpt <= e.Restore {
				k++
			}
			h.Ckpts[e.P] = cs[:k]
		}
	}
	return h
}

// liveSend reports whether the send that copy (msg, copy) stands for is
// live, and its op.
func (h *History) liveSend(msg, copy int32) (bool, int32) {
	s, ok := h.sendOf[[2]int32{msg, copy}]
	if !ok {
		return false, trace.None
	}
	e := &h.run.Events[s]
	live := int(e.Op) < len(h.Live[e.P]) && h.Live[e.P][e.Op] == s
	return live, e.Op
}

// UndoneReceipts returns the seqs of live receipts whose copy's send is
// not live: orphans left at the end.
func (h *History) UndoneReceipts() []int32 {
	var out []int32
	for p := range h.Live {
		for _, s := range h.Live[p] {
			e := &h.run.Events[s]
			if e.Kind != trace.Recv {
				continue
			}
			if live, _ := h.liveSend(e.Msg, e.Copy); !live {
				out = append(out, s)
			}
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a] < out[b] })
	return out
}

// Consistent reports the first message of the final live history that the
// cut (cut[p] = number of p's ops inside) makes an orphan: received inside,
// sent outside.
func (h *History) Consistent(cut []int32) error {
	for p := range h.Live {
		for op, s := range h.Live[p] {
			e := &h.run.Events[s]
			if e.Kind != trace.Recv || int32(op) >= cut[p] {
				continue
			}
			live, sop := h.liveSend(e.Msg, e.Copy)
			if !live {
				continue
			}
			from := h.run.Events[h.sendOf[[2]int32{e.Msg, e.Copy}]].P
			if sop >= cut[from] {
				return fmt.Errorf("message %s: received by %s at op %d inside the cut, sent by %s at op %d outside (cut %v)",
					h.run.Msgs[e.Msg], h.run.Processes[p], op, h.run.Processes[from], sop, cut)
			}
		}
	}
	return nil
}

// SnLines checks the MS theorem over the final live history: for every n
// up to the largest checkpoint number, each process's earliest live
// checkpoint numbered ≥ n (its current state if none) forms a consistent
// cut.
func (h *History) SnLines() error {
	maxSn := int32(0)
	for p := range h.Ckpts {
		for _, s := range h.Ckpts[p] {
			if sn := h.run.Events[s].Sn; sn > maxSn {
				maxSn = sn
			}
		}
	}
	cut := make([]int32, len(h.Live))
	for n := int32(0); n <= maxSn; n++ {
		for p := range cut {
			cut[p] = int32(len(h.Live[p]))
			if n == 0 {
				cut[p] = 0
				continue
			}
			for _, s := range h.Ckpts[p] {
				if c := &h.run.Events[s]; c.Sn >= n {
					cut[p] = c.Pos
					break
				}
			}
		}
		if err := h.Consistent(cut); err != nil {
			return fmt.Errorf("line S_%d: %w", n, err)
		}
	}
	return nil
}

// AppEvents returns, per process, the trace's app events (ops) as
// (t, kind, msg) triples, and the run's, for the failure-free identity.
func AppEvents(tr *trace.Trace, r *trace.Run) (want, got [][]string) {
	n := len(tr.Processes)
	want, got = make([][]string, n), make([][]string, n)
	for i := range tr.Events {
		e := &tr.Events[i]
		if e.Kind.IsOp() {
			want[e.P] = append(want[e.P], fmt.Sprintf("%s %s %d", e.T, e.Kind, e.Msg))
		}
	}
	for i := range r.Events {
		e := &r.Events[i]
		if e.Kind.IsOp() {
			got[e.P] = append(got[e.P], fmt.Sprintf("%s %s %d", e.T, e.Kind, e.Msg))
		}
	}
	return want, got
}

// RandomTrace makes a seeded random valid trace: procs processes doing ops
// program operations in total (sends to random peers with random delays,
// some never received, internal ops), timer ticks at independent rates,
// a few flushes and failures failures (which may overlap). Times are whole
// milliseconds.
func RandomTrace(seed int64, procs, ops, failures int) *trace.Trace {
	rng := rand.New(rand.NewSource(seed))
	type ev struct {
		t    int64
		ord  int
		kind trace.Kind
		p    int
		to   int
		msg  string
		down int64
	}
	var evs []ev
	clock := make([]int64, procs)
	for i := 0; i < ops; i++ {
		p := rng.Intn(procs)
		clock[p] += 1 + int64(rng.Intn(40))
		if procs > 1 && rng.Intn(3) != 0 {
			to := rng.Intn(procs - 1)
			if to >= p {
				to++
			}
			msg := fmt.Sprintf("m%d", i)
			evs = append(evs, ev{t: clock[p], kind: trace.Send, p: p, to: to, msg: msg})
			if rng.Intn(10) != 0 {
				evs = append(evs, ev{t: clock[p] + 1 + int64(rng.Intn(80)), kind: trace.Recv, p: to, msg: msg})
			}
		} else {
			evs = append(evs, ev{t: clock[p], kind: trace.Internal, p: p})
		}
	}
	end := int64(1)
	for _, e := range evs {
		if e.t > end {
			end = e.t
		}
	}
	for p := 0; p < procs; p++ {
		period := 20 + int64(rng.Intn(100))
		for t := period; t < end; t += period {
			evs = append(evs, ev{t: t, kind: trace.Checkpoint, p: p})
		}
		if rng.Intn(2) == 0 {
			evs = append(evs, ev{t: 1 + rng.Int63n(end), kind: trace.Flush, p: p})
		}
	}
	for i := 0; i < failures; i++ {
		evs = append(evs, ev{t: 1 + rng.Int63n(end), kind: trace.Fail, p: rng.Intn(procs), down: 10 + rng.Int63n(200)})
	}
	for i := range evs {
		evs[i].ord = i
	}
	// A receive must follow its send in file order; its time is strictly
	// later, and a process's ops keep the order of their times because
	// its receives are inserted at their own times.
	sort.SliceStable(evs, func(a, b int) bool { return evs[a].t < evs[b].t })
	// Receives of one process must not go back in time relative to its
	// other ops: the sort by time already guarantees it.
	names := make([]string, procs)
	for p := range names {
		names[p] = fmt.Sprintf("P%d", p)
	}
	b := trace.NewBuilder(names...).Params(trace.Params{RestartDelay: 50 * trace.Second / 1000, ControlDelay: 20 * trace.Second / 1000, DefaultDelay: 60 * trace.Second / 1000})
	for _, e := range evs {
		t := float64(e.t) / 1000
		switch e.kind {
		case trace.Send:
			b.Send(t, names[e.p], names[e.to], e.msg)
		case trace.Recv:
			b.Recv(t, names[e.p], e.msg)
		case trace.Internal:
			b.Internal(t, names[e.p])
		case trace.Checkpoint:
			b.Checkpoint(t, names[e.p])
		case trace.Flush:
			b.Flush(t, names[e.p])
		case trace.Fail:
			b.FailDown(t, names[e.p], float64(e.down)/1000)
		}
	}
	tr, err := b.Build()
	if err != nil {
		panic(fmt.Sprintf("replaytest: random trace %d invalid: %v", seed, err))
	}
	return tr
}
