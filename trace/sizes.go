package trace

// Sizes are the counts of a trace (or of a run, to check it) that the
// engine reserves its run by and the memory estimates read (packages
// replay and pipeline, each algorithm's entry in package algorithms, and
// the run decoder's first pass, codec.RunHead).
type Sizes struct {
	Events, Msgs, Procs int64
	Busy                int64 // processes with events of their own
	Sends, Recvs        int64
	Checkpoints         int64 // timer ticks of a trace, checkpoints of a run
	Flushes, Fails      int64
}

// Count counts an event of kind k.
func (s *Sizes) Count(k Kind) {
	switch k {
	case Send:
		s.Sends++
	case Recv:
		s.Recvs++
	case Checkpoint:
		s.Checkpoints++
	case Flush:
		s.Flushes++
	case Fail:
		s.Fails++
	}
}
