package replay

import "github.com/ckpt-dev/ckpt/trace"

// Sizes are trace.Sizes: the engine reserves its run by them.
type Sizes = trace.Sizes

// SizesOf counts tr.
func SizesOf(tr *trace.Trace) Sizes {
	s := Sizes{Events: int64(len(tr.Events)), Msgs: int64(len(tr.Msgs)), Procs: int64(len(tr.Processes))}
	for i := range tr.Events {
		s.Count(tr.Events[i].Kind)
	}
	_, busy := tr.Busy()
	s.Busy = int64(busy)
	return s
}

// RunEvents bounds the events of a replay of a trace of sizes s: the
// trace's events but its flushes (PK writes their log entries, at most
// one per receive), plus per receive a forced checkpoint or log entry,
// per failure its restart and its process's control messages and
// rollbacks (three per process), and an end per process.
func RunEvents(s Sizes) int64 {
	return s.Events - s.Flushes + s.Recvs + s.Fails*(3*s.Procs+2) + 2*s.Procs + 16
}
