package replay

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/trace"
)

// Quiet: the point past which nothing is restored again, and what may be
// forgotten there.
//
// An offline engine knows the whole trace, so it knows when the last
// failure is behind: once the trace's last fail event is processed, no
// process is down and no control message is in flight, PK has answered
// every failure — its restarts, tokens and rollbacks all come from
// failures and control messages — and will restore nothing again. From
// then on, a vector time is read only where it is made and where its copy
// is delivered. Input.Quiet tells the algorithm, which may forget its
// log's piggybacks and its checkpoints' vectors; Options.Forget lets the
// engine drop them from the run once the stream has taken them. At 4,096
// processes these vectors were 90% of a PK run's memory
// (docs/performance.md).

// quietState is the engine's part of it.
type quietState struct {
	// quiet is set once the run is quiet, and stays set.
	quiet bool
	// lastFail is the index of the trace's last fail event, -1 for none.
	lastFail int
	// nDown counts the processes down.
	nDown int
	// forget is Options.Forget (with a Stream).
	forget bool
	// forgetPBs and forgetVTs are the piggybacks and checkpoint vectors
	// to drop once the stream has taken the events made so far.
	forgetPBs, forgetVTs []int32
	// quietPB is the number of piggybacks made before the quiet point:
	// only later ones are forgotten.
	quietPB int32
	// taken is Options.Taken: nil when the stream takes each event
	// before it returns.
	taken func()
}

// forgetBatch is how many vectors an engine whose stream is taken on
// another goroutine (Options.Taken) notes before it waits for the
// stream and forgets them: one wait per step would undo what the other
// goroutine gains.
const forgetBatch = 1 << 12

// checkQuiet sets quiet when the trace event at index next and the ones
// after it hold no failure and the run is at rest: nothing down, no
// control message in flight.
func (e *engine) checkQuiet(next int) {
	if !e.quiet && next > e.lastFail && e.nDown == 0 && len(e.ctrls) == len(e.ctrlFree) {
		e.quiet, e.quietPB = true, int32(len(e.out.PBs))
	}
}

// delivered notes that the copy c was delivered. A piggyback made past
// the quiet point is read by nobody after the stream once its copy is
// delivered: it has that one copy (no resend or requeue comes past the
// quiet point) and no restore will read it. One made before may have
// been delivered before the quiet point, logged and read again by a
// restart's replay rule, or be shared with a copy discarded and judged
// after the fact, so it is kept: these are few, the copies in flight at
// the quiet point.
func (e *engine) delivered(c CopyID) {
	if pb := e.copies[c].pb; e.forget && e.quiet && pb >= e.quietPB {
		e.forgetPBs = append(e.forgetPBs, pb)
	}
}

// stored notes checkpoint vector i, taken past the quiet point.
func (e *engine) stored(i int32) {
	if e.forget && e.quiet && i != trace.None {
		e.forgetVTs = append(e.forgetVTs, i)
	}
}

// forgetStreamed drops the vectors noted since the last stream call,
// which has just taken every event that carries them (or, with
// Options.Taken, will have once Taken returns).
func (e *engine) forgetStreamed() {
	n := len(e.forgetPBs) + len(e.forgetVTs)
	if n == 0 {
		return
	}
	if e.taken != nil {
		// Forgetting less is always safe: the stream then judges
		// vectors it would have judged anyway.
		if n < forgetBatch {
			return
		}
		e.taken()
	}
	for _, i := range e.forgetPBs {
		if pb := &e.out.PBs[i]; pb.VT != nil {
			pb.Forget()
			e.out.Forgotten++
		}
	}
	for _, i := range e.forgetVTs {
		if e.out.VTs[i] != nil {
			e.out.VTs[i] = nil
			e.out.Forgotten++
		}
	}
	e.forgetPBs, e.forgetVTs = e.forgetPBs[:0], e.forgetVTs[:0]
}

// forgotten returns an error when the piggyback at index pb was forgotten:
// an algorithm that restores or resends past the quiet point broke what
// Input.Quiet promised it, and a copy handed on without its vector would
// be judged as one that never had one.
func (e *engine) forgotten(pb int32, what string) error {
	if pb == trace.None || e.out.PBs[pb].Forgot == 0 {
		return nil
	}
	return fmt.Errorf("replay: algorithm %s %s a copy delivered after the last failure was answered, whose vector time was forgotten (replay.Options.Forget)", e.alg.Name(), what)
}
