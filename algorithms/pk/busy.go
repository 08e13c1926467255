package pk

import "github.com/ckpt-dev/ckpt/trace"

// busySet marks the processes that have events of their own in a trace.
type busySet struct {
	has   []bool
	count int
}

// busyProcs returns the processes with at least one event in tr: only
// they send, receive, checkpoint, fail or roll back, so only they need a
// vector time of their own (an idle process's is the zero vector).
func busyProcs(tr *trace.Trace, n int32) busySet {
	b := busySet{has: make([]bool, n)}
	for i := range tr.Events {
		if p := tr.Events[i].P; p >= 0 && p < n && !b.has[p] {
			b.has[p] = true
			b.count++
		}
	}
	return b
}
