// Package report is the checker's verdict as data — the report schema of
// SPEC §9 — and the pure functions on it (verdicts, counts). The checker
// fills it; package render writes it for people and for CI. Field names
// and JSON tags are a contract: add fields freely, never rename.
package report

import "github.com/ckpt-dev/ckpt/trace"

// Status is a property's verdict.
type Status string

// The four verdicts of SPEC §7. Unknown is never promoted to Pass: a
// property the run cannot show stays unknown.
const (
	Pass    Status = "pass"
	Fail    Status = "fail"
	NA      Status = "n/a"
	Unknown Status = "unknown"
)

// Property names of SPEC §7, in report order, with rdt for the
// checkpoint-placement protocols (docs/protocols.md).
const (
	OrphanFree      = "orphan-free"
	NoLostMessages  = "no-lost-messages"
	NoDuplicates    = "no-duplicates"
	LogReplayRules  = "log-replay-rules"
	DominoFree      = "domino-free"
	ZCycleFree      = "z-cycle-free"
	RDT             = "rdt" // rollback-dependency trackability, FDAS's promise (docs/checker.md)
	SnLines         = "sn-lines"
	MinimalRollback = "minimal-rollback"
	Equivalence     = "equivalence"
)

// PropertyNames lists every property in the order reports show them.
var PropertyNames = []string{
	OrphanFree, NoLostMessages, NoDuplicates, LogReplayRules, DominoFree,
	ZCycleFree, RDT, SnLines, MinimalRollback, Equivalence,
}

// Report is the verdict on one (file, algorithm) pair. A JSON report is an
// array of them.
type Report struct {
	File       string     `json:"file"`
	Algorithm  string     `json:"algorithm"`
	Valid      bool       `json:"valid"`
	Properties []Property `json:"properties"`
	Recoveries []Recovery `json:"recoveries"`
	Baseline   Baseline   `json:"baseline"`
	Stats      Stats      `json:"stats"`
	// Verdict refines Valid for CI (verdict.go): "valid", "invalid",
	// "unknown" (nothing failed, but nothing applicable passed either, or
	// --strict and some property is unknown) or "error" (the input could
	// not be read or replayed). Valid keeps SPEC §9's meaning, "no
	// property fails". Renderers fill it from the properties (Judge), so
	// the checker need not set it.
	Verdict Verdict `json:"verdict"`
	// FailuresExercised counts the failures whose recovery the run shows
	// (len(Recoveries)): 0 means only failure-free behaviour was checked.
	FailuresExercised int `json:"failures_exercised"`
	// Error is why the file has no analysis (invalid input, a replay that
	// could not run), without the file name; empty for every checked
	// report. See ErrorReport.
	Error string `json:"error,omitempty"`
}

// Property is one property's verdict with its witnesses.
type Property struct {
	Name       string      `json:"name"`
	Status     Status      `json:"status"`
	Violations []Violation `json:"violations"`
	// Note says why a property is n/a or unknown, or what a pass did
	// not judge (a recorded run's replay times).
	Note string `json:"note,omitempty"`
}

// Violation is one witness of a failed property: what went wrong, the run
// events that show it, and a step-by-step explanation.
type Violation struct {
	Property string  `json:"property"`
	Message  string  `json:"message"`
	Seqs     []int32 `json:"seqs"`
	Because  string  `json:"because"`
}

// FailureRef names a fail event of the run.
type FailureRef struct {
	P   string     `json:"p"`
	T   trace.Time `json:"t"`
	Seq int32      `json:"seq"`
}

// Announcement is a PK failure announcement (inc, k).
type Announcement struct {
	Inc int32 `json:"inc"`
	K   int32 `json:"k"`
}

// Recovery is the recovery line the algorithm established for one
// failure.
type Recovery struct {
	Failure FailureRef `json:"failure"`
	// RecLine is MS's recovery line number r; nil for PK.
	RecLine *int32 `json:"rec_line"`
	// Announcement is PK's; nil for MS.
	Announcement    *Announcement `json:"announcement"`
	Line            []LineEntry   `json:"line"`
	ControlMessages int           `json:"control_messages"`
	// MaxLine is the maximum consistent recovery line of checkpoints
	// (Wang 1997) the Extra figures compare against.
	MaxLine []MaxLineEntry `json:"max_line,omitempty"`
	// Note says why MaxLine is absent, so that a reader does not take
	// the missing extra figures for zero; empty when it is there.
	Note string `json:"note,omitempty"`
}

// LineEntry is one process's part in a recovery.
type LineEntry struct {
	P string `json:"p"`
	// Restore is the restored checkpoint id, or nil if the process did
	// not roll back for this failure.
	Restore *int32 `json:"restore"`
	// Sn (MS) or VT (PK) describes the restored checkpoint.
	Sn        *int32 `json:"sn"`
	VT        VT     `json:"vt"`
	Pos       int32  `json:"pos"`
	Undone    int    `json:"undone"`
	Replayed  int    `json:"replayed"`
	Discarded int    `json:"discarded"`
	Resent    int    `json:"resent"`
	// Extra is ops the algorithm undid minus ops the maximum consistent
	// recovery line of checkpoints undoes; negative where logging saved
	// work; nil where that line was not computed (Recovery.Note says
	// why).
	Extra *int `json:"extra"`
	// Cause says why it rolled back ("restart", "request", "message",
	// "token"), or "none".
	Cause string `json:"cause,omitempty"`
}

// MaxLineEntry is one process's checkpoint on the maximum consistent
// recovery line.
type MaxLineEntry struct {
	P      string `json:"p"`
	Ckpt   int32  `json:"ckpt"`
	Pos    int32  `json:"pos"`
	Undone int    `json:"undone"`
}

// Baseline compares the algorithm with what uncoordinated checkpointing
// would suffer on the same trace (SPEC §7).
type Baseline struct {
	Uncoordinated Uncoordinated `json:"uncoordinated"`
}

// Uncoordinated is the uncoordinated-checkpointing baseline: rollback
// propagation for each failure on its own.
type Uncoordinated struct {
	Domino bool `json:"domino"`
	// Undone sums, over failures, the ops every process goes back.
	Undone int `json:"undone"`
	// Useless counts timer-tick checkpoints on a Z-cycle over all of the
	// trace's messages.
	Useless int                    `json:"useless"`
	Line    []UncoordinatedFailure `json:"line"`
}

// UncoordinatedFailure is the baseline rollback for one failure.
type UncoordinatedFailure struct {
	Failure FailureRef           `json:"failure"`
	Domino  bool                 `json:"domino"`
	Line    []UncoordinatedEntry `json:"line"`
}

// UncoordinatedEntry is how far one process goes back in the baseline.
type UncoordinatedEntry struct {
	P string `json:"p"`
	// Ckpt counts the process's checkpoints, 0 being the initial one.
	Ckpt   int32 `json:"ckpt"`
	Pos    int32 `json:"pos"`
	Undone int   `json:"undone"`
	// Domino is true when it ends before its latest checkpoint before the
	// failure.
	Domino bool `json:"domino"`
}

// Stats are a run's totals.
type Stats struct {
	Events          int             `json:"events"`
	Messages        int             `json:"messages"`
	Checkpoints     CheckpointStats `json:"checkpoints"`
	Logged          int             `json:"logged"`
	Replayed        int             `json:"replayed"`
	Discarded       int             `json:"discarded"`
	Resent          int             `json:"resent"`
	ControlMessages int             `json:"control_messages"`
	Rollbacks       int             `json:"rollbacks"`
	Undone          int             `json:"undone"`
	PiggybackBytes  int64           `json:"piggyback_bytes"`
	// Discards by reason, holds and token hops refine the totals above.
	DiscardedBy map[string]int `json:"discarded_by,omitempty"`
	Holds       int            `json:"holds"`
	TokenHops   int            `json:"token_hops"`
}

// CheckpointStats count checkpoints by type.
type CheckpointStats struct {
	Initial     int `json:"initial"`
	Basic       int `json:"basic"`
	Forced      int `json:"forced"`
	Recovery    int `json:"recovery"`
	Skipped     int `json:"skipped"`
	Useless     int `json:"useless"`
	Collectable int `json:"collectable"`
}
