package replay

import "github.com/ckpt-dev/ckpt/trace"

// Sizes are the counts of a trace (or of a run, to check it) that the
// engine reserves its run by and the memory estimates read (package
// pipeline, and each algorithm's entry in package algorithms).
type Sizes struct {
	Events, Msgs, Procs int64
	Busy                int64 // processes with events of their own
	Sends, Recvs        int64
	Checkpoints         int64 // timer ticks of a trace, checkpoints of a run
	Flushes, Fails      int64
}

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

// Count counts an event of kind k.
func (s *Sizes) Count(k trace.Kind) {
	switch k {
	case trace.Send:
		s.Sends++
	case trace.Recv:
		s.Recvs++
	case trace.Checkpoint:
		s.Checkpoints++
	case trace.Flush:
		s.Flushes++
	case trace.Fail:
		s.Fails++
	}
}

// RunEvents bounds the events of a replay of a trace of sizes s: the
// trace's events but its flushes (PK writes their log entries, at most
// one per receive), plus per receive a forced checkpoint or log entry,
// per failure its restart and its process's control messages and
// rollbacks (three per process), and an end per process.
func (s Sizes) RunEvents() int64 {
	return s.Events - s.Flushes + s.Recvs + s.Fails*(3*s.Procs+2) + 2*s.Procs + 16
}
