package history

import "slices"

// What a judge that follows the run as it streams (consistency.Stream)
// reads of the model while it is being built. The Model's own accessors
// for these read Procs, which Finish fills; the builder answers the same
// questions from its per-process state, which at event seq already holds
// everything up to seq and nothing after it.

// Model returns the model being built: its Run, Copies, Restores and
// tables indexed by seq are filled up to the last event added; Procs and
// everything Finish derives are not. It is the model Finish returns.
func (b *Builder) Model() *Model { return b.m }

// Inc is Model.Inc for the events added so far.
func (b *Builder) Inc(p, seq int32) int32 {
	if p < 0 || int(p) >= len(b.procs) {
		return None
	}
	n, _ := slices.BinarySearch(b.procs[p].restarts, seq)
	return int32(n)
}

// Taken returns the checkpoints p has taken so far, as Proc.Taken will
// list them (append only: an index into it stays valid).
func (b *Builder) Taken(p int32) []Ckpt { return b.procs[p].taken }
