package trace

import "slices"

// Via says where a run's recv took its copy from.
type Via uint8

// Values of a recv's "via" field.
const (
	ViaNone Via = iota
	ViaNet      // "net": from the mailbox
	ViaLog      // "log": replayed from the stable message log
)

// CkptType is a checkpoint's "type".
type CkptType uint8

// Checkpoint types of SPEC §6.
const (
	CkptNone     CkptType = iota
	CkptInitial           // "initial": checkpoint 0, written only by foreign runs
	CkptBasic             // "basic": a timer tick
	CkptForced            // "forced": MS, before delivering a higher-numbered message
	CkptRecovery          // "recovery": MS, applying a recovery without rolling back
)

// Reason is the "reason" of a discard or of a skipped checkpoint.
type Reason uint8

// Reasons of SPEC §6.
const (
	ReasonNone      Reason = iota
	ReasonStale            // "stale": MS, its send was undone by a recovery
	ReasonOrphan           // "orphan": PK, it depends on lost events
	ReasonDuplicate        // "duplicate": the live history already received it
	ReasonDown             // "down": a tick of a down process (checkpoint_skipped)
	// Coordinated checkpointing's skipped ticks (checkpoint_skipped):
	ReasonNotInitiator // "not-initiator": only the initiator's ticks start rounds
	ReasonInRound      // "in-round": the initiator's tick while its round runs
)

// Cause is a rollback's "cause".
type Cause uint8

// Rollback causes of SPEC §6.
const (
	CauseNone    Cause = iota
	CauseRequest       // "request": an MS Rollback request
	CauseMessage       // "message": an MS message from a later recovery
	CauseToken         // "token": a PK token
)

// Control is the kind of a control message.
type Control uint8

// Control message kinds of SPEC §6.
const (
	ControlNone     Control = iota
	ControlRollback         // "rollback": MS Rollback(R) request
	ControlToken            // "token": PK token
	// Coordinated checkpointing's two phases (docs/protocols.md):
	ControlRequest // "request": the initiator asks for a round's checkpoint
	ControlAck     // "ack": a process has taken it and waits for the commit
	ControlCommit  // "commit": every process has; the round is over
)

// EndState is the "state" of an end event.
type EndState uint8

// End states of SPEC §3/§6.
const (
	StateNone    EndState = iota
	StateDone             // "done": the whole program ran
	StateBlocked          // "blocked": waiting for a message
	StateHeld             // "held": the algorithm holds it (PK before the token returns, or a held receive)
	StateDown             // "down": the run ended while it was down
)

var (
	viaNames      = []string{"", "net", "log"}
	ckptTypeNames = []string{"", "initial", "basic", "forced", "recovery"}
	reasonNames   = []string{"", "stale", "orphan", "duplicate", "down", "not-initiator", "in-round"}
	causeNames    = []string{"", "request", "message", "token"}
	controlNames  = []string{"", "rollback", "token", "request", "ack", "commit"}
	stateNames    = []string{"", "done", "blocked", "held", "down"}
)

func name(names []string, i uint8) string {
	if int(i) < len(names) {
		return names[i]
	}
	return "?"
}

// Parse returns the value of E (a Kind or one of the run's enums) whose
// name is s, or its zero value (none) when no value has that name. The
// decoders parse several per event: the names are compared as strings
// from E's table, not through String (a call through the generic
// dictionary per name made a parse four times slower).
func Parse[E interface {
	~uint8
	String() string
}](s string) E {
	var names []string
	switch any(E(0)).(type) {
	case Kind:
		names = kindNames[:]
	case Via:
		names = viaNames
	case CkptType:
		names = ckptTypeNames
	case Reason:
		names = reasonNames
	case Cause:
		names = causeNames
	case Control:
		names = controlNames
	case EndState:
		names = stateNames
	}
	for i := 1; i < len(names); i++ {
		if names[i] == s {
			return E(i)
		}
	}
	return 0
}

// String is the via as a run writes it.
func (v Via) String() string { return name(viaNames, uint8(v)) }

// String is the checkpoint type as a run writes it.
func (c CkptType) String() string { return name(ckptTypeNames, uint8(c)) }

// String is the discard reason as a run writes it.
func (r Reason) String() string { return name(reasonNames, uint8(r)) }

// String is the rollback cause as a run writes it.
func (c Cause) String() string { return name(causeNames, uint8(c)) }

// String is the control message kind as a run writes it.
func (c Control) String() string { return name(controlNames, uint8(c)) }

// String is the end state as a run writes it.
func (s EndState) String() string { return name(stateNames, uint8(s)) }

// VTEntry is one entry of a Peterson–Kearns vector time: an (incarnation,
// count) pair, compared lexicographically. JSON: [inc, count]. Count
// comes first in memory so that, on a little-endian machine, an entry
// read as one machine word orders as Less does (trace.VT.Merge).
type VTEntry struct {
	Count int32
	Inc   int32
}

// Less reports whether e precedes o lexicographically.
func (e VTEntry) Less(o VTEntry) bool {
	return e.Inc < o.Inc || (e.Inc == o.Inc && e.Count < o.Count)
}

// VT is a vector time, one entry per process. JSON: [[inc, count], ...].
type VT []VTEntry

// FEntry is one non-zero entry of an MS failure-count vector: process P
// has failed Count times as far as the holder has applied. JSON: the
// vector is an object {"P0": 2, ...} in process order.
type FEntry struct {
	P     int32
	Count int32
}

// Piggyback is what a message carries (SPEC §6 `pb`): MS {sn, f}, MS
// textbook {sn, inc, rec_line}, PK {vt}, and for the checkpoint-placement
// protocols (docs/protocols.md) BCS {sn}, FDAS {dv}, HMNR {lc, ckpt,
// taken, greater}. Absent numbers are None.
type Piggyback struct {
	Sn      int32
	Inc     int32
	RecLine int32
	F       []FEntry // sparse, sorted by P; nil and empty both encode as {}
	VT      VT
	// CIC holds the vectors of the communication-induced protocols FDAS
	// and HMNR, nil for every other algorithm: a pointer keeps the
	// piggyback table of MS and PK runs (one entry per send) as small as
	// before.
	CIC *CIC
}

// CIC is the vector part of an FDAS or HMNR piggyback, one entry per
// process in process order (docs/formats.md). A piggyback's CIC is
// immutable once sent: senders share it until their state changes.
type CIC struct {
	// LC is HMNR's logical clock lc, None for FDAS. It is not written as
	// sn: a receipt may raise it without a checkpoint, so it is no BCS
	// index.
	LC int32
	// DV is FDAS's transitive dependency vector: DV[k] is one more than
	// the latest checkpoint interval of process k in the sender's causal
	// past, 0 for none.
	DV []int32
	// Ckpt, Taken and Greater are HMNR's ckpt[k], taken[k] and
	// greater[k].
	Ckpt           []int32
	Taken, Greater []bool
}

// NewPiggyback returns a piggyback with every number absent.
func NewPiggyback() Piggyback { return Piggyback{Sn: None, Inc: None, RecLine: None} }

// Bytes is the size of pb in a compact binary encoding, so that
// algorithms are compared on what they carry rather than on JSON
// spelling: 4 bytes a number (sn, inc, rec_line, lc) and a dense vector
// entry (dv, ckpt), 8 an entry of a sparse vector (f: process and
// count) or a vector-time pair (vt), one bit a flag (taken, greater),
// rounded up to whole bytes. A nil pb is 0.
func (pb *Piggyback) Bytes() int64 {
	if pb == nil {
		return 0
	}
	var n int64
	for _, v := range [...]int32{pb.Sn, pb.Inc, pb.RecLine} {
		if v != None {
			n += 4
		}
	}
	n += 8 * int64(len(pb.F)+len(pb.VT))
	if c := pb.CIC; c != nil {
		if c.LC != None {
			n += 4
		}
		n += 4 * int64(len(c.DV)+len(c.Ckpt))
		n += (int64(len(c.Taken)+len(c.Greater)) + 7) / 8
	}
	return n
}

// Identity names one transmission lineage of a message for PK: the message
// id and the sender's incarnation when it sent it.
type Identity struct {
	Msg int32
	Inc int32
}

// ControlBody is the body of a control message. MS Rollback(R) uses
// Origin, Count and R; a PK token uses Origin (the announcing process),
// Inc, K and Received. Absent numbers are None.
type ControlBody struct {
	Origin int32
	Count  int32
	R      int32
	Inc    int32
	K      int32
	// Received lists the identities of every receipt live in the
	// announcer's recovered state (PK): sorted by message as ckpt's PK
	// makes it, but as read from a file in the file's order, which the
	// reader's message numbering need not keep (a search sorts it first).
	Received []Identity
	// Receipts, when not nil, stands for Received: an algorithm that
	// keeps its receipt history persistently hands out a view of it
	// rather than a copy per token (a copy per failure made memory
	// quadratic in failures), and the list is made only when the body
	// is written or described. Read both through ReceivedList.
	Receipts ReceiptSet
}

// ReceiptSet is a set of PK receipt identities kept elsewhere.
type ReceiptSet interface {
	// Identities returns the set sorted by message, non-nil (an empty
	// set is written "received": []).
	Identities() []Identity
}

// ReceiptWalker is a ReceiptSet that also hands out its identities one
// at a time, in no particular order, without making the list: a checker
// that reads each token's set once then holds no list per token, as a
// run that is checked but never written holds none.
type ReceiptWalker interface {
	ReceiptSet
	WalkIdentities(yield func(Identity))
}

// ReceiptHasher is a ReceiptSet that also gives its multiset hash (the
// sum of IdentityHash over its identities, mod 2^64) and its size in
// O(1): a checker comparing every token's set with the one it rebuilds
// then costs O(1) per token instead of the set's size, which made
// checking 10^5 failures of a 10^5-op trace quadratic.
type ReceiptHasher interface {
	ReceiptSet
	SetHash() (sum uint64, n int)
}

// ReceiptLookup is a ReceiptSet that also answers membership without
// making its list: a checker asking whether a token lists the message a
// hop resends then costs a lookup per resend, not the set's size per
// token.
type ReceiptLookup interface {
	ReceiptSet
	HasIdentity(id Identity) bool
}

// IdentityHash is a receipt identity's term in a ReceiptHasher's sum:
// splitmix64 of the message and incarnation, so that sets differing in
// any identity differ in their sums but for a 2^-64 chance (an
// implementation would have to forge a list on purpose to collide).
func IdentityHash(id Identity) uint64 {
	z := uint64(uint32(id.Msg))<<32 | uint64(uint32(id.Inc))
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// SameReceived reports whether c and o list the same receipts: one view
// of an algorithm's receipts (without making its list), or equal lists.
func (c *ControlBody) SameReceived(o *ControlBody) bool {
	if c.Receipts != nil && c.Receipts == o.Receipts {
		return true
	}
	return slices.Equal(c.ReceivedList(), o.ReceivedList())
}

// ReceivedList returns the token's receipt identities: Received, or the
// list Receipts stands for.
func (c *ControlBody) ReceivedList() []Identity {
	if c.Receipts != nil {
		return c.Receipts.Identities()
	}
	return c.Received
}

// NewControlBody returns a body with every number absent.
func NewControlBody() ControlBody {
	return ControlBody{Origin: None, Count: None, R: None, Inc: None, K: None}
}

// RunEvent is one event of a run (SPEC §6). Fields a kind does not use
// are None (int32), zero (enums, bools) or None indexes. One struct for
// all kinds keeps a run a single flat slice.
//
// RunEvent holds no pointers: its variable-size parts (piggyback, vector
// time, control body, free text) live in side tables of the Run and are
// referred to by int32 index. A run's event slice is then a noscan
// allocation the garbage collector never walks (at 10^7 events it was
// one 4 GB mark phase), and an event is about half its former size.
// Read those parts through the Run's accessors (PB, VTOf, Body, Until,
// Label) and attach them with its adders (AddPB, AddVT, AddBody,
// AddString). Fields are ordered widest first so the struct has no
// padding holes.
type RunEvent struct {
	T   Time
	Seq int32
	P   int32
	// Peer is "to" of a send or control_send, "from" of a recv or
	// control_recv.
	Peer int32
	Msg  int32
	Op   int32
	// Copy numbers the transmissions of a message id (1, 2, …); 0 absent.
	Copy int32
	// Of is the copy a resend repeats; 0 absent.
	Of int32
	// Ckpt is a checkpoint's id; Restore the checkpoint a restart or
	// rollback restores.
	Ckpt    int32
	Restore int32
	Pos     int32
	Undone  int32
	Sn      int32
	Next    int32
	Inc     int32
	// Failure is the seq of the fail event this event answers, or None.
	Failure int32
	// PB indexes Run.PBs (the message's piggyback), or None.
	PB int32
	// VT indexes Run.VTs (a checkpoint's vector time), or None.
	VT int32
	// Body indexes Run.Bodies (a control message's body), or None.
	Body int32
	// Until indexes Run.Strings: what a held receive waits for (free
	// text), or None.
	Until int32
	// Label indexes Run.Strings (the event's label), or None.
	Label    int32
	Kind     Kind
	Resend   bool
	Via      Via
	CkptType CkptType
	Reason   Reason
	Cause    Cause
	Control  Control
	State    EndState
}

// NewRunEvent returns an event of the given kind with every optional
// field absent. Build events with it: in a zero RunEvent the side-table
// indexes are 0, which names the first entry, not an absent one.
func NewRunEvent(kind Kind, t Time, p int32) RunEvent {
	return RunEvent{
		Kind: kind, T: t, P: p, Seq: None,
		Peer: None, Msg: None, Op: None, Ckpt: None, Restore: None,
		Pos: None, Undone: None, Sn: None, Next: None, Inc: None,
		Failure: None,
		PB:      None, VT: None, Body: None, Until: None, Label: None,
	}
}

// RunOptions are the replay options a run was produced with.
type RunOptions struct {
	Params  Params
	Variant string
	// Timing is TimingRecorded for a run recorded from a running system,
	// whose times are the system's, not a replay's; "" for a replay.
	Timing string
}

// TimingRecorded is the options.timing of a recorded run
// (docs/formats.md).
const TimingRecorded = "recorded"

// Run is a decoded run: the header and every event in seq order.
type Run struct {
	// Name is the file the run was read from.
	Name      string
	Algorithm string
	Processes []string
	Options   RunOptions
	// Source is the file name of the trace the run was replayed from, if
	// any.
	Source string
	// Msgs holds the message ids; RunEvent.Msg indexes it.
	Msgs   []string
	Events []RunEvent
	// PBs, VTs, Bodies and Strings are the side tables RunEvent's PB,
	// VT, Body, Until and Label index, so that Events holds no pointers.
	// They are small next to Events: one entry per send, checkpoint,
	// control message or labelled event.
	//
	// The adders grow them by doubling, not by append's 1.25× for large
	// slices: PK stores one piggyback per send, and 1.25× steps would
	// allocate about five times the final table.
	PBs     []Piggyback
	VTs     []VT
	Bodies  []ControlBody
	Strings []string
}

// PB returns e's piggyback, or nil when it has none. The pointer is into
// r.PBs: valid until the next AddPB.
func (r *Run) PB(e *RunEvent) *Piggyback {
	if e.PB == None {
		return nil
	}
	return &r.PBs[e.PB]
}

// VTOf returns e's vector time, or nil when it has none.
func (r *Run) VTOf(e *RunEvent) VT {
	if e.VT == None {
		return nil
	}
	return r.VTs[e.VT]
}

// Body returns e's control body, or nil when it has none. The pointer is
// into r.Bodies: valid until the next AddBody.
func (r *Run) Body(e *RunEvent) *ControlBody {
	if e.Body == None {
		return nil
	}
	return &r.Bodies[e.Body]
}

// Until returns what e, a held receive, waits for, or "".
func (r *Run) Until(e *RunEvent) string { return r.str(e.Until) }

// Label returns e's label, or "".
func (r *Run) Label(e *RunEvent) string { return r.str(e.Label) }

func (r *Run) str(i int32) string {
	if i == None {
		return ""
	}
	return r.Strings[i]
}

// AddPB stores pb in r.PBs and returns its index for RunEvent.PB; nil
// gives None, so a nil pointer stays "absent" as it was before the index.
func (r *Run) AddPB(pb *Piggyback) int32 {
	if pb == nil {
		return None
	}
	return push(&r.PBs, *pb)
}

// AddVT stores vt in r.VTs and returns its index for RunEvent.VT. A nil
// vt gives None; an empty non-nil one is stored, because the codec
// writes it ("vt": []) where it omits a nil one.
func (r *Run) AddVT(vt VT) int32 {
	if vt == nil {
		return None
	}
	return push(&r.VTs, vt)
}

// AddBody stores b in r.Bodies and returns its index for RunEvent.Body;
// nil gives None.
func (r *Run) AddBody(b *ControlBody) int32 {
	if b == nil {
		return None
	}
	return push(&r.Bodies, *b)
}

// AddString stores s in r.Strings and returns its index for
// RunEvent.Until or RunEvent.Label; "" gives None, since the codec omits
// an empty Until or Label. A string equal to the last one stored reuses
// its index, which keeps runs whose consecutive events share a label
// from growing the table.
func (r *Run) AddString(s string) int32 {
	if s == "" {
		return None
	}
	if n := len(r.Strings); n > 0 && r.Strings[n-1] == s {
		return int32(n - 1)
	}
	return push(&r.Strings, s)
}

// push appends v to the table *tab and returns its index.
func push[T any](tab *[]T, v T) int32 {
	*tab = append(Grow(*tab), v)
	return int32(len(*tab) - 1)
}

// Into copies s with its capacity into dst's memory, or into new memory
// when dst is nil or has less room: the tables a clone of a replay or
// of its checker goes on appending to, as its original would, without
// growing them again, in the memory of a clone released before it
// (replay.Sim.Release, consistency.Stream.Recycle).
func Into[S ~[]E, E any](dst, s S) S {
	if s == nil {
		return nil
	}
	if dst == nil || cap(dst) < cap(s) {
		dst = make(S, 0, cap(s))
	}
	return append(dst[:0], s...)
}

// Grow makes room for one more element, doubling the capacity: the
// runtime grows large slices by only 1.25×, which for a million events
// means several times more copying and fresh (page-faulting) memory.
// The run's tables and the decoders' events and message tables grow by
// it.
func Grow[T any](s []T) []T {
	if len(s) < cap(s) {
		return s
	}
	ns := make([]T, len(s), max(2*cap(s), 256))
	copy(ns, s)
	return ns
}
