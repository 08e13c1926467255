package history

// What a judge that follows the run as it streams (consistency.Stream)
// reads of the model while it is being built. The Model's own accessors
// for these read Procs, which Finish fills; the builder answers the same
// questions from its per-process state, which holds everything up to the
// last event added and nothing after it.

// Model returns the model being built: its Run, Copies, Restores and
// tables indexed by seq are filled up to the last event added; Procs and
// everything Finish derives are not. It is the model Finish returns.
func (b *Builder) Model() *Model { return b.m }

// Incarnation is Model.Inc(p, seq) for an event at seq that is not a
// restart of p, once every event before it has been added: the restarts
// of p so far.
func (b *Builder) Incarnation(p int32) int32 { return int32(len(b.procs[p].restarts)) }

// Taken returns the checkpoints p has taken so far, as Proc.Taken will
// list them (append only: an index into it stays valid).
func (b *Builder) Taken(p int32) []Ckpt { return b.procs[p].taken }
