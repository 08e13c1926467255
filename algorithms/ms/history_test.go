package ms_test

import (
	"fmt"
	"sort"

	"github.com/ckpt-dev/ckpt/trace"
)

// History is the final live history of a run, recomputed from its events
// alone (restarts and rollbacks truncate a process to their pos), as an
// oracle for MS's tests independent of the checker.
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

// newHistory replays the run's records into live histories.
func newHistory(r *trace.Run) *History {
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

// undoneReceipts returns the seqs of live receipts whose copy's send is
// not live: orphans left at the end.
func (h *History) undoneReceipts() []int32 {
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

// consistent reports the first message of the final live history that the
// cut (cut[p] = number of p's ops inside) makes an orphan: received inside,
// sent outside.
func (h *History) consistent(cut []int32) error {
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

// snLines checks the MS theorem over the final live history: for every n
// up to the largest checkpoint number, each process's earliest live
// checkpoint numbered ≥ n (its current state if none) forms a consistent
// cut.
func (h *History) snLines() error {
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
		if err := h.consistent(cut); err != nil {
			return fmt.Errorf("line S_%d: %w", n, err)
		}
	}
	return nil
}
