package ms

import (
	"slices"
	"sort"

	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// The message log (SPEC §4.2 "Message logging rule", "Message replay
// rule"): one stable list per process, one entry per op, sorted by op.

type logEntry struct {
	op   int32
	copy replay.CopyID
	pb   trace.Piggyback
}

func (a *MS) addLog(p replay.Proc, e logEntry) {
	pr := &a.procs[p]
	pr.log = append(pr.log, e)
	for i := len(pr.log) - 1; i > 0 && pr.log[i-1].op > e.op; i-- {
		pr.log[i-1], pr.log[i] = pr.log[i], pr.log[i-1]
	}
}

func (a *MS) dropLog(p replay.Proc, op int32) {
	pr := &a.procs[p]
	if i := slices.IndexFunc(pr.log, func(e logEntry) bool { return e.op == op }); i >= 0 {
		pr.log = slices.Delete(pr.log, i, i+1)
	}
}

// replayLog applies the replay rule after restoring a checkpoint at pos:
// it keeps the entries before pos, keeps and returns those at or after pos
// that are still valid, and drops the rest. The result is fresh: one
// input may restore several times (a restart applying pending requests).
func (a *MS) replayLog(p replay.Proc, pos int32) []replay.LogCopy {
	pr := &a.procs[p]
	var out []replay.LogCopy
	// The log is sorted by op: entries before pos stay as they are.
	first := sort.Search(len(pr.log), func(i int) bool { return pr.log[i].op >= pos })
	kept := pr.log[:first]
	for _, e := range pr.log[first:] {
		if bad, _ := a.stale(p, &e.pb); bad {
			continue
		}
		out = append(out, replay.LogCopy{Op: e.op, Copy: e.copy})
		kept = append(kept, e)
	}
	pr.log = kept
	return out
}
