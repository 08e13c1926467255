package explore

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/goccy/go-json"

	"github.com/ckpt-dev/ckpt/report"
	"github.com/ckpt-dev/ckpt/trace"
)

// Result is an exploration's findings, the document `ckpt explore
// --format json` writes. Field names and JSON tags are a contract: add
// fields freely, never rename.
type Result struct {
	File string `json:"file"`
	// Valid is true exactly when Verdict is valid, as in verify's and
	// check's JSON: a stopped exploration is not a clean one.
	Valid bool `json:"valid"`
	// Verdict is valid (no schedule fails and every algorithm has a
	// property that passes), invalid (a schedule fails), unknown (an
	// algorithm with no property that passes) or stopped (Stopped).
	Verdict report.Verdict `json:"verdict"`
	Scope   Scope          `json:"scope"`
	// Algorithms are in Options.Algorithms order.
	Algorithms []AlgorithmResult `json:"algorithms"`
	// Baseline is uncoordinated checkpointing over the same injected
	// failures, each on its own (SPEC §7's baseline).
	Baseline PerFailure `json:"baseline"`
	// Stopped is set when the exploration was stopped before it ran
	// every schedule (Scope.Run of Scope.ToRun): the figures are those of
	// the schedules run, and witnesses are not shrunk.
	Stopped bool `json:"stopped"`
}

// VerdictStopped is the verdict of an exploration stopped before it ran
// every schedule.
const VerdictStopped report.Verdict = "stopped"

// Mode says how the space was covered.
type Mode string

// Modes of a Scope.
const (
	Exhaustive Mode = "exhaustive"
	Sampled    Mode = "sampled"
)

// Scope states what was explored: the claim a clean result makes.
type Scope struct {
	Failures      int    `json:"failures"`
	Delays        bool   `json:"delays"`
	StripFailures bool   `json:"strip_failures"`
	Reduced       bool   `json:"reduced"`
	Mode          Mode   `json:"mode"`
	Budget        int64  `json:"budget"`
	Seed          uint64 `json:"seed"`
	Shard         string `json:"shard"`
	// Trace is a digest of the trace explored, its effective params
	// included (traceDigest): shards of a file of the same name but other
	// events, or run with other delays, are another exploration, which
	// merge refuses.
	Trace string `json:"trace"`
	// Points counts the failure points of the recorded trace.
	Points int `json:"points"`
	// DelayVectors counts the delay choices (1 without --delays).
	DelayVectors *big.Int `json:"delay_vectors"`
	// Schedules is the whole space: delay vectors × failure sets.
	Schedules *big.Int `json:"schedules"`
	// Classes is what the reduction leaves of it (null when not counted:
	// a sampled space too large to count), Merged the difference.
	Classes *big.Int `json:"classes"`
	Merged  *big.Int `json:"merged"`
	// Run counts the schedules this run replayed (one per class), of
	// ToRun it set out to, and Covered the schedules of the space they
	// stand for.
	Run     int64    `json:"run"`
	ToRun   int64    `json:"to_run"`
	Covered *big.Int `json:"covered"`
	// Coverage is Covered / Schedules.
	Coverage float64 `json:"coverage"`
}

// AlgorithmResult is one algorithm's findings.
type AlgorithmResult struct {
	// Algorithm is the run header's name: "ms", "ms-textbook", "pk".
	Algorithm  string           `json:"algorithm"`
	Valid      bool             `json:"valid"`
	Properties []PropertyResult `json:"properties"`
	Worst      Worst            `json:"worst"`
	PerFailure PerFailure       `json:"per_failure"`
	// Note says why PerFailure is surprising, when it is (UndoneNote).
	Note string `json:"note,omitempty"`
}

// UndoneNote explains, for algorithm alg undoing mean ops per failure
// against base for uncoordinated checkpointing, why MS undoes far more
// when it does — at least twice as many, and one op more (issue 31: on
// sparse real logs 65.7 against 6.9): its recovery rolls every process
// back to the recovery line S_r, whether or not it depends on the
// failed one. "" otherwise.
func UndoneNote(alg string, mean, base float64) string {
	if !strings.HasPrefix(alg, "ms") || mean < 2*base || mean < base+1 {
		return ""
	}
	return fmt.Sprintf("%s undoes more per failure than uncoordinated checkpointing (mean %.2f against %.2f): MS's recovery rolls every process back to S_r, needed or not, even one that never heard from the failed process (docs/protocols.md)", alg, mean, base)
}

// PropertyResult counts the schedules failing one property.
type PropertyResult struct {
	Name string `json:"name"`
	// Status sums the runs up: fail if any schedule fails; else unknown
	// if the checker could not judge it in some run (unknown never lets
	// a broken run pass); else n/a if it does not apply in any run (e.g.
	// minimal-rollback for MS); else pass.
	Status report.Status `json:"status"`
	// Failing counts schedules of the space (classes weighted by their
	// size); FailingClasses the schedules actually replayed.
	Failing        int64 `json:"failing"`
	FailingClasses int64 `json:"failing_classes"`
	// Witness is the first failing schedule, shrunk; nil when none fails.
	Witness *Witness `json:"witness"`
}

// Witness is a standalone trace that fails the property.
type Witness struct {
	// Path is where the caller wrote Trace ("" until then).
	Path string `json:"path"`
	// Schedule is the first failing schedule in schedule order.
	Schedule ScheduleInfo `json:"schedule"`
	// Events, Processes and Messages size the shrunk trace; Original*
	// the schedule's trace before shrinking.
	Events            int `json:"events"`
	Processes         int `json:"processes"`
	Messages          int `json:"messages"`
	OriginalEvents    int `json:"original_events"`
	OriginalProcesses int `json:"original_processes"`
	OriginalMessages  int `json:"original_messages"`
	// Tests counts the replays shrinking spent.
	Tests int `json:"shrink_tests"`
	// Trace is the shrunk trace, and Doc its ckpt/trace document, which
	// the JSON result carries so that shards merge with their witnesses
	// (Merge).
	Trace *trace.Trace    `json:"-"`
	Doc   json.RawMessage `json:"trace"`
	// s is the schedule, until result describes it and builds its trace.
	s *sched
}

// ScheduleInfo names a schedule: its ordinal in schedule order and what
// it changes in the trace.
type ScheduleInfo struct {
	Ordinal int64 `json:"ordinal"`
	// Class is how many schedules of the space it stands for.
	Class    int64         `json:"class"`
	Failures []FailureInfo `json:"failures"`
	Delays   []DelayInfo   `json:"delays"`
}

// FailureInfo is one injected failure.
type FailureInfo struct {
	P     string     `json:"p"`
	T     trace.Time `json:"t"`
	Down  trace.Time `json:"down"`
	Where string     `json:"where"`
}

// DelayInfo is one message that arrives later than recorded.
type DelayInfo struct {
	Msg   string     `json:"msg"`
	Extra trace.Time `json:"extra"`
}

// Worst is the worst case over the scope, for one injected failure.
type Worst struct {
	// Undone: the most ops one failure's recovery undid, all processes
	// together.
	Undone Extreme `json:"undone"`
	// Processes: the most processes one failure rolled back.
	Processes Extreme `json:"processes"`
	// Extra: the largest rollback beyond the maximum consistent line of
	// checkpoints, summed over the processes (negative: logging saved
	// work). Measured at each class's representative (docs/explore.md).
	Extra Extreme `json:"extra"`
}

// Extreme is a worst value and the first schedule that reaches it.
type Extreme struct {
	Value    int           `json:"value"`
	Schedule *ScheduleInfo `json:"schedule"`
	// s is the schedule (Schedule holds only its ordinal), until result
	// describes it: a description
	// counts the ops before each point, and taken under the tally's lock
	// once per lead it made explore quadratic in the trace.
	s *sched
}

// PerFailure summarises ops undone per injected failure over the space.
type PerFailure struct {
	Failures int64   `json:"failures"`
	Total    int64   `json:"total"`
	Mean     float64 `json:"mean"`
	Max      int     `json:"max"`
}
