package consistency

import (
	"fmt"
	"strings"

	"github.com/ckpt-dev/ckpt/consistency/history"
)

// equivalence judges SPEC §7 equivalence: each process's final live
// history is its whole program, in order, every receive getting the same
// message id. A run that breaks its own form fails it too (the run spec,
// as the run streamed: spec_run*.go), an end record that contradicts the
// rebuilt history among them.
func equivalence(m *history.Model, r *result) {
	if m.Missing.Ops {
		r.cannotJudge(finalOpsWhy)
		return
	}
	if src := m.Mismatched; src != nil {
		r.fail([]int32{}, func() (string, string) {
			return "the run and its source trace have different processes",
				fmt.Sprintf("the source trace's processes are %s, the run's %s: a replay runs its trace's processes, in the trace's order", strings.Join(src.Processes, ", "), strings.Join(m.Run.Processes, ", "))
		})
		return
	}
	if m.Src == nil {
		r.cannotJudge("no source trace: the processes' programs are unknown")
		return
	}
	for p := range m.Procs {
		programAt(m, int32(p), r)
	}
	replayTimes(m, r)
}

// programAt compares process p's final live history with its program.
func programAt(m *history.Model, p int32, r *result) {
	k := int(m.Procs[p].Agreed)
	if k == len(m.Procs[p].Live) && k == m.ProgLen(p) {
		return
	}
	r.failChain(func() (string, []int32, string) {
		because, seqs := programDiff(m, p, k)
		return fmt.Sprintf("%s's final live history is not its program", m.ProcName(p)), seqs, because
	})
}

// programDiff says how process p's final live history departs from its
// program at op k, the first where they differ, and the seqs that show it.
func programDiff(m *history.Model, p int32, k int) (string, []int32) {
	live, n, op := m.Procs[p].Live, m.ProgLen(p), m.ProgOp(p, int32(k))
	seqs := []int32{}
	switch {
	case k < len(live) && k < n:
		s := live[k]
		got := "a gap"
		if s != history.None {
			got = m.Describe(s)
			seqs = append(seqs, s)
		}
		return fmt.Sprintf("op %d of %s's program is %s%s, but its final live history has %s there", k, m.ProcName(p), op.Kind, m.MsgOpt(op.Msg), got), seqs
	case k < n:
		if e := m.Procs[p].End; e != history.None {
			seqs = append(seqs, e)
		}
		return fmt.Sprintf("%s's program has %d ops, its final live history only %d: op %d (%s%s) and the rest never happened", m.ProcName(p), n, len(live), k, op.Kind, m.MsgOpt(op.Msg)), seqs
	}
	return fmt.Sprintf("%s's program has %d ops, but its final live history has %d", m.ProcName(p), n, len(live)), seqs
}
