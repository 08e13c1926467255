package trace

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
	reasonNames   = []string{"", "stale", "orphan", "duplicate", "down"}
	causeNames    = []string{"", "request", "message", "token"}
	controlNames  = []string{"", "rollback", "token"}
	stateNames    = []string{"", "done", "blocked", "held", "down"}
)

func name(names []string, i uint8) string {
	if int(i) < len(names) {
		return names[i]
	}
	return "?"
}

func parse(names []string, s string) uint8 {
	for i := 1; i < len(names); i++ {
		if names[i] == s {
			return uint8(i)
		}
	}
	return 0
}

func (v Via) String() string      { return name(viaNames, uint8(v)) }
func (c CkptType) String() string { return name(ckptTypeNames, uint8(c)) }
func (r Reason) String() string   { return name(reasonNames, uint8(r)) }
func (c Cause) String() string    { return name(causeNames, uint8(c)) }
func (c Control) String() string  { return name(controlNames, uint8(c)) }
func (s EndState) String() string { return name(stateNames, uint8(s)) }

// ParseVia returns the Via named s, or ViaNone.
func ParseVia(s string) Via { return Via(parse(viaNames, s)) }

// ParseCkptType returns the checkpoint type named s, or CkptNone.
func ParseCkptType(s string) CkptType { return CkptType(parse(ckptTypeNames, s)) }

// ParseReason returns the reason named s, or ReasonNone.
func ParseReason(s string) Reason { return Reason(parse(reasonNames, s)) }

// ParseCause returns the cause named s, or CauseNone.
func ParseCause(s string) Cause { return Cause(parse(causeNames, s)) }

// ParseControl returns the control kind named s, or ControlNone.
func ParseControl(s string) Control { return Control(parse(controlNames, s)) }

// ParseEndState returns the end state named s, or StateNone.
func ParseEndState(s string) EndState { return EndState(parse(stateNames, s)) }

// VTEntry is one entry of a Peterson–Kearns vector time: an (incarnation,
// count) pair, compared lexicographically. JSON: [inc, count].
type VTEntry struct {
	Inc   int32
	Count int32
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
// textbook {sn, inc, rec_line}, PK {vt}. Absent numbers are None.
type Piggyback struct {
	Sn      int32
	F       []FEntry // sparse, sorted by P; nil and empty both encode as {}
	Inc     int32
	RecLine int32
	VT      VT
}

// NewPiggyback returns a piggyback with every number absent.
func NewPiggyback() Piggyback { return Piggyback{Sn: None, Inc: None, RecLine: None} }

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
	// announcer's recovered state (PK).
	Received []Identity
}

// NewControlBody returns a body with every number absent.
func NewControlBody() ControlBody {
	return ControlBody{Origin: None, Count: None, R: None, Inc: None, K: None}
}

// RunEvent is one event of a run (SPEC §6). Fields a kind does not use
// are None (int32), zero (enums, bools) or nil. One struct for all kinds
// keeps a run a single flat slice.
type RunEvent struct {
	Seq  int32
	T    Time
	Kind Kind
	P    int32
	// Peer is "to" of a send or control_send, "from" of a recv or
	// control_recv.
	Peer int32
	Msg  int32
	Op   int32
	// Copy numbers the transmissions of a message id (1, 2, …); 0 absent.
	Copy int32
	// Of is the copy a resend repeats; 0 absent.
	Of     int32
	Resend bool
	Via    Via
	PB     *Piggyback
	// Ckpt is a checkpoint's id; Restore the checkpoint a restart or
	// rollback restores.
	Ckpt     int32
	Restore  int32
	CkptType CkptType
	Pos      int32
	Undone   int32
	Sn       int32
	Next     int32
	Inc      int32
	VT       VT
	Reason   Reason
	Cause    Cause
	Control  Control
	Body     *ControlBody
	State    EndState
	// Until says what a held receive waits for (free text).
	Until string
	// Failure is the seq of the fail event this event answers, or None.
	Failure int32
	Label   string
}

// NewRunEvent returns an event of the given kind with every optional
// field absent.
func NewRunEvent(kind Kind, t Time, p int32) RunEvent {
	return RunEvent{
		Kind: kind, T: t, P: p, Seq: None,
		Peer: None, Msg: None, Op: None, Ckpt: None, Restore: None,
		Pos: None, Undone: None, Sn: None, Next: None, Inc: None,
		Failure: None,
	}
}

// RunOptions are the replay options a run was produced with.
type RunOptions struct {
	Params  Params
	Variant string
}

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
}

// ProcIndex returns the index of the process named name, or None.
func (r *Run) ProcIndex(name string) int32 {
	for i, p := range r.Processes {
		if p == name {
			return int32(i)
		}
	}
	return None
}
