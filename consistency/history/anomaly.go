package history

import "github.com/ckpt-dev/ckpt/trace"

// Kind classifies an Anomaly: one way a run contradicts itself or the
// run format (SPEC §6). Which property an anomaly breaks is the property
// rules' decision, not the model's.
type Kind uint8

// Anomaly kinds, in no particular order.
const (
	SeqMismatch            Kind = iota // an event's seq is not its position
	ProcOutOfRange                     // an event names no process of the header
	OpOutOfRange                       // an op number no process can have reached
	BrokenContinuity                   // an app event's op is not its process's live count
	CkptPos                            // a checkpoint's pos is not the live count
	NegativePos                        // a checkpoint, restart or rollback with pos < 0
	PosBeyondLive                      // a restart or rollback keeps more ops than are live
	UndoneCount                        // a restart or rollback's undone differs from the count
	ProgramMismatch                    // two executions disagree on what op k is
	CopyNeverSent                      // a receive of a copy no send transmitted before
	ResendNotLive                      // a resend of a send that is not live
	UnheldRestore                      // a restore of a checkpoint the process does not hold
	CopyRenumbered                     // a copy number used twice, or skipping numbers
	WrongReceiver                      // a receive or discard of a copy sent to another process
	WrongSender                        // a receive naming a sender other than the copy's
	FlushUnlogged                      // a PK flush of the source trace leaving a live receipt without a log event
	DiscardNeverHeld                   // a discard of a copy neither in the mailbox nor taken before
	UnconsumedNotInMailbox             // an unconsumed record of a copy not in that mailbox
	RestartNotDown                     // a restart of a process that is not down
	FailureNotFail                     // a failure field naming no effective fail event it can answer
	HandledBeforeRestart               // a rollback or recovery checkpoint for a failure not yet restarted
	RollbackWhileDown                  // a rollback of a process that is down
	RestartInc                         // a restart whose inc is not the process's restart count
	CkptIDReused                       // a checkpoint id its process used before
	TimeOrder                          // an event earlier than the one before it
	AfterEnd                           // an event other than unconsumed after the run's end
	EndTwice                           // a second end event of a process
	EndMissing                         // a process with no end event
	ControlUnsent                      // a control message received that was never sent
	ControlUnreceived                  // a control message sent that never arrives
	EnvironmentMismatch                // a tick or fail that is not the source trace's
	MailboxUnlisted                    // a copy left in a mailbox no unconsumed record lists
	OpWhileDown                        // an app op of a process that is down
	CkptWhileDown                      // a checkpoint of a down process, or a skip "down" of an up one
	Unprompted                         // a rollback, control message or resend for a failure its process had not heard of
	LogUnmatched                       // a PK log event of no live receipt still volatile
	DiscardNotInMailbox                // a discard of a copy taken before, but not from MS's replay log
	ControlBodyChanged                 // a control message received with another body than it was sent with
	ResendOf                           // a resend whose of names no earlier copy of the send it repeats
	RestoreBelowCkpt                   // a restart or rollback keeping fewer ops than its checkpoint holds
	LogUnflushed                       // a PK log event at an instant its process neither flushes nor ticks in the source trace
	ControlLate                        // a control message received other than control_delay after its send
	EqualTimeOrder                     // a process's items at one instant out of the trace's order
	CopySkipped                        // a receive taking a copy while an earlier one waits in the mailbox
	ArrivalEarly                       // a receipt earlier than its copy's arrival
	RestartTime                        // a restart other than its fail's down time after it
	numKinds
)

// AllKinds lists every anomaly kind.
func AllKinds() []Kind {
	out := make([]Kind, numKinds)
	for k := range out {
		out[k] = Kind(k)
	}
	return out
}

// Anomaly is one witness of a Kind: the event that shows it, a one-line
// message and a because-chain.
type Anomaly struct {
	Kind    Kind
	Seqs    []int32
	Message string
	Because string
	order   int // position among all anomalies, to merge kinds in run order
}

// anomalyList keeps the first MaxKept anomalies of a kind and counts all.
type anomalyList struct {
	kept  []Anomaly
	count int
}

// anomaly records an anomaly of kind k at seq; text renders its message
// and because-chain and is called only for the ones kept, so a broken
// run of millions of events formats a handful of strings.
func (b *Builder) anomaly(k Kind, seq int32, text func() (msg, because string)) {
	if b.counted(k) {
		b.keep(k, []int32{seq}, text)
	}
}

// anomalyPair is anomaly for a witness of two events, first and seq.
func (b *Builder) anomalyPair(k Kind, first, seq int32, text func() (msg, because string)) {
	if b.counted(k) {
		b.keep(k, []int32{first, seq}, text)
	}
}

// counted counts an anomaly of kind k and reports whether it is among
// the first MaxKept, to be kept: the callers build its seqs only then, as
// every allocation past the cap would be one per event of a broken run.
func (b *Builder) counted(k Kind) bool {
	l := &b.m.anomalies[k]
	l.count++
	b.nAnomalies++
	return len(l.kept) < MaxKept
}

// keep keeps the anomaly counted last, of kind k.
func (b *Builder) keep(k Kind, seqs []int32, text func() (msg, because string)) {
	msg, because := text()
	l := &b.m.anomalies[k]
	l.kept = append(l.kept, Anomaly{Kind: k, Seqs: seqs, Message: msg, Because: because, order: b.nAnomalies})
}

// Anomalies returns the kept anomalies of the given kinds, merged in the
// order the builder met them, and how many there were in all.
func (m *Model) Anomalies(kinds ...Kind) ([]Anomaly, int) {
	var out []Anomaly
	total := 0
	for _, k := range kinds {
		total += m.anomalies[k].count
		out = append(out, m.anomalies[k].kept...)
	}
	// Insertion sort: a handful of elements, already sorted per kind.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].order < out[j-1].order; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out, total
}

// wellFormedBecause prefixes the because-chain of an anomaly that only
// says the run breaks its own format.
func wellFormedBecause(msg string) string { return "the run is not well formed: " + msg }

// isApp reports whether e is a program op other than a resend.
func isApp(e *trace.RunEvent) bool {
	return e.Kind.IsOp() && !(e.Kind == trace.Send && e.Resend)
}
