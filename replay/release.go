package replay

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/trace"
)

// What the engine lets go. A run streamed to a consumer (Options.Stream)
// need not keep every vector time: PK's piggybacks and checkpoint vectors
// are each one entry per process, and at 4,096 processes keeping all of
// them was 90% of a replay's memory. The engine drops a vector from the
// run once two facts about the past hold: the consumer has taken every
// event that carries it (Stream's return), and nothing the engine or the
// algorithm holds can read it again. The second comes from the algorithm's
// EffStable — its own verdict, from its own state, that a process will
// never restore below a checkpoint — and from the copies the engine
// holds:
//
//   - a checkpoint's vector, once its process's next checkpoint has
//     another: nothing the engine holds reads it, and a restore reads
//     nothing of the run;
//   - a piggyback, once the send that made it is final at its sender and
//     every copy that carries it was delivered by a receipt that is final
//     at its receiver: no copy can be offered, put back or repeated again.
//     A copy discarded, left in a mailbox or taken by a receipt later
//     undone keeps its piggyback to the end.
//
// A restore's vectors are no exception: the checker reads each vector
// only while it takes the event carrying it (consistency/spec_pk_vectors.go
// keeps its own copy of what a later restore reads).
//
// The algorithm's vectors are its own business: it holds what it needs
// and drops the rest (PK: algorithms/pk/line.go).

// releaseState is the engine's part of it.
type releaseState struct {
	// stable is, per process, its latest EffStable.
	stable []stableAt
	// pbRefs counts, per entry of the run's PBs, the sends that made it
	// and are not final, and the copies carrying it that were not
	// delivered by a final receipt. An entry whose count drops to 0 is
	// queued in drops; one whose vector is dropped is -1.
	pbRefs []int32
	// drops are the vectors to drop once the consumer has taken the
	// events made so far, oldest first; next is the first not dropped.
	drops []drop
	next  int
}

// stableAt is a process's stable checkpoint and its position.
type stableAt struct{ ckpt, pos int32 }

// drop is a piggyback (pb) or checkpoint vector (vt) of the run, the other
// None, to drop once the consumer has taken the events before upto.
type drop struct{ upto, pb, vt int32 }

// hold counts a new copy carrying piggyback pb, and the send that made
// it when first.
func (e *engine) hold(pb int32, first bool) {
	if pb == trace.None {
		return
	}
	e.pbRefs[pb]++
	if first {
		e.pbRefs[pb]++
	}
}

// unhold ends one reason to keep piggyback pb.
func (e *engine) unhold(pb int32) {
	if pb == trace.None || e.pbRefs[pb] <= 0 {
		return
	}
	if e.pbRefs[pb]--; e.pbRefs[pb] == 0 && e.stream != nil {
		e.drops = append(e.drops, drop{upto: int32(len(e.out.Events)), pb: pb, vt: trace.None})
	}
}

// usable returns an error when the vector of piggyback pb was dropped:
// the algorithm repeats a copy it declared final (EffStable).
func (e *engine) usable(pb int32, what string) error {
	if pb == trace.None || e.pbRefs[pb] >= 0 {
		return nil
	}
	return fmt.Errorf("replay: algorithm %s %s a copy of a send it declared final (EffStable), whose vector time the engine let go", e.alg.Name(), what)
}

// stabilize applies EffStable: the ops of process f.To before checkpoint
// f.Ckpt are final. Their sends and receipts end a reason to keep their
// piggybacks; earlier checkpoints are forgotten.
func (e *engine) stabilize(f *Effect) error {
	q := int32(f.To)
	if q < 0 || int(q) >= len(e.procs) {
		return fmt.Errorf("replay: algorithm %s: EffStable of bad process %d", e.alg.Name(), f.To)
	}
	st := &e.stable[q]
	if f.Ckpt <= st.ckpt {
		return nil
	}
	pos, err := e.ckptPos(q, f.Ckpt)
	if err != nil {
		return err
	}
	pr := &e.procs[q]
	for k := st.pos; k < pos && k < pr.pos(); k++ {
		if c := pr.live[k]; c != NoCopy {
			// A send's op or a receipt's copy: either ends one reason.
			e.unhold(e.copies[c].pb)
		}
	}
	st.ckpt, st.pos = f.Ckpt, pos
	i := 0
	for i < len(pr.ckpts) && pr.ckpts[i].id < f.Ckpt {
		i++
	}
	pr.ckpts = pr.ckpts[i:] // no restore reads them again
	return nil
}

// replaced lets go of checkpoint vector vt, which its process's next
// checkpoint does not share (storeVT): the consumer reads it only while
// it takes the events that carry it, and a restore reads nothing of the
// run (the checker keeps, by reference, the vectors a later restore
// reads: a vector handed out is never written again, as
// algorithms/pk's TestVectorsNeverRewritten pins).
func (e *engine) replaced(vt int32) {
	if vt != trace.None && e.stream != nil {
		e.drops = append(e.drops, drop{upto: int32(len(e.out.Events)), pb: trace.None, vt: vt})
	}
}

// release drops the queued vectors whose events the consumer has taken:
// the first taken events of the run.
func (e *engine) release(taken int) {
	for ; e.next < len(e.drops) && int(e.drops[e.next].upto) <= taken; e.next++ {
		d := e.drops[e.next]
		if d.vt != trace.None {
			e.out.VTs[d.vt] = nil
		} else if e.pbRefs[d.pb] == 0 {
			// Still unheld: no resend came in between.
			e.out.PBs[d.pb].VT = nil
			e.pbRefs[d.pb] = -1
		}
	}
	if e.next == len(e.drops) {
		e.drops, e.next = e.drops[:0], 0
	}
}
