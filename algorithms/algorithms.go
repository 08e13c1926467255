// Package algorithms is the table of the algorithms ckpt can replay a
// trace through (All): their names, variants, one-line descriptions,
// whether they recover, their memory estimates and constructors. The
// command line's --algo and --variant flags, their validation and their
// help, the memory cap (package pipeline) and New all read it, so adding
// an algorithm is adding an entry.
package algorithms

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ckpt-dev/ckpt/algorithms/bcs"
	"github.com/ckpt-dev/ckpt/algorithms/coordinated"
	"github.com/ckpt-dev/ckpt/algorithms/fdas"
	"github.com/ckpt-dev/ckpt/algorithms/hmnr"
	"github.com/ckpt-dev/ckpt/algorithms/ms"
	"github.com/ckpt-dev/ckpt/algorithms/pk"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// Algorithm describes one algorithm.
type Algorithm struct {
	// Name is what --algo takes, and the run header's "algorithm" for the
	// default variant.
	Name string
	// Doc is a one-line description, for help.
	Doc string
	// Recovery reports whether the algorithm recovers from failures
	// (restart, rollback, message logging or replay) rather than only
	// taking checkpoints.
	Recovery bool
	// Variants are its real variants besides the default ("").
	Variants []Variant
	// Memory estimates the bytes its state and the piggybacks its run
	// carries take beyond what the engine keeps per event (which the
	// pipeline counts), and says what makes them that big; nil: nothing
	// that grows beyond the engine's per-event share (scalar
	// piggybacks).
	Memory func(s replay.Sizes) (bytes int64, why string)
	// New returns a fresh state machine for the trace tr with the given
	// variant ("" or one of Variants), and refuses any other.
	New func(variant string, tr *trace.Trace) (replay.Algorithm, error)
}

// Variant is one real variant of an algorithm (test-only mutants are not
// variants: they live in algorithms/mutants).
type Variant struct {
	Name string
	Doc  string
}

// All is the table, in the order reports list the algorithms.
var All = []Algorithm{
	{
		Name:     "ms",
		Doc:      "Manivannan–Singhal quasi-synchronous checkpointing and recovery (SPEC §4)",
		Recovery: true,
		Variants: []Variant{{Name: ms.Textbook, Doc: "the scalar inc/rec_line rules of ckpt's original design note, literally (docs/ms.md)"}},
		New:      func(v string, tr *trace.Trace) (replay.Algorithm, error) { return ms.New(v, tr) },
	},
	{
		Name:     "pk",
		Doc:      "Peterson–Kearns rollback recovery based on vector time (SPEC §5)",
		Recovery: true,
		// A vector time on every send and checkpoint, and a current one
		// per process with events (pk.New).
		Memory: func(s replay.Sizes) (int64, string) { return vectors(s, 8, s.Busy) },
		New:    func(v string, tr *trace.Trace) (replay.Algorithm, error) { return pk.New(v, tr) },
	},
	// The checkpoint-placement protocols (docs/protocols.md): no
	// recovery, so a trace with a failure is an input error naming it.
	{
		Name: bcs.Name,
		Doc:  "Briatico–Ciuffoletti–Simoncini index-based checkpointing (BCS 1984)",
		New:  placement(bcs.Name, func(tr *trace.Trace) replay.Algorithm { return bcs.New(tr) }),
	},
	{
		Name: fdas.Name,
		Doc:  "Wang's Fixed-Dependency-After-Send, rollback-dependency trackable (FDAS 1997)",
		// A dependency vector of int32 on every send and checkpoint.
		Memory: func(s replay.Sizes) (int64, string) { return vectors(s, 4, 0) },
		New:    placement(fdas.Name, func(tr *trace.Trace) replay.Algorithm { return fdas.New(tr) }),
	},
	{
		Name:   hmnr.Name,
		Doc:    "Hélary–Mostefaoui–Netzer–Raynal communication-induced checkpointing (HMNR 2000)",
		Memory: func(s replay.Sizes) (int64, string) { return vectors(s, 4, 0) },
		New:    placement(hmnr.Name, func(tr *trace.Trace) replay.Algorithm { return hmnr.New(tr) }),
	},
	{
		Name: coordinated.Name,
		Doc:  "blocking two-phase coordinated checkpointing (Koo–Toueg rounds)",
		New:  placement(coordinated.Name, func(tr *trace.Trace) replay.Algorithm { return coordinated.New(tr) }),
	},
}

// vectors estimates a process-wide vector of entry bytes per entry on
// every send and checkpoint, and on current more (one per busy process:
// the algorithm's own), and says so.
func vectors(s replay.Sizes, entry, current int64) (int64, string) {
	n := s.Sends + s.Checkpoints + current
	why := fmt.Sprintf("%d processes: a %d-entry vector for each of %d sends and %d checkpoints", s.Procs, s.Procs, s.Sends, s.Checkpoints)
	if s.Sends+s.Checkpoints < current {
		why = fmt.Sprintf("%d processes: a %d-entry vector for each of %d busy processes", s.Procs, s.Procs, current)
	}
	return s.Procs * entry * n, why
}

// placement adapts the constructor of a checkpoint-placement protocol,
// which has no variants, to the table's. Such a protocol places
// checkpoints in failure-free executions, which is what the classic
// comparisons of such protocols measure, and has no recovery procedure:
// a trace with a failure is refused, naming its first fail event,
// rather than replayed wrongly. How far a failure would roll it back is
// an analysis of its failure-free checkpoints (the maximum consistent
// recovery line), not a replay: docs/protocols.md.
func placement(name string, mk func(*trace.Trace) replay.Algorithm) func(string, *trace.Trace) (replay.Algorithm, error) {
	return func(v string, tr *trace.Trace) (replay.Algorithm, error) {
		if v != "" {
			return nil, fmt.Errorf("%s: unknown variant %q (%s has none)", name, v, name)
		}
		for i := range tr.Events {
			if tr.Events[i].Kind == trace.Fail {
				return nil, &trace.InputError{File: tr.Name, Event: i, Doc: "trace",
					Msg: fmt.Sprintf("fail: %s places checkpoints in failure-free executions only and has no recovery (replay failures with ms or pk)", name)}
			}
		}
		return mk(tr), nil
	}
}

// Lookup returns the entry of algorithm name.
func Lookup(name string) (*Algorithm, bool) {
	if i := slices.IndexFunc(All, func(a Algorithm) bool { return a.Name == name }); i >= 0 {
		return &All[i], true
	}
	return nil, false
}

// AllNames are the names of All, in table order: what --algo takes.
var AllNames = names(func(*Algorithm) bool { return true })

// Names are the names of the algorithms that recover from failures
// (Recovery: ms, pk), in table order — what --algo both selects, and
// what the consistency checker judges end to end (its tests replay each
// of them on traces with failures). The checkpoint-placement protocols
// are in AllNames only.
var Names = names(func(a *Algorithm) bool { return a.Recovery })

func names(keep func(*Algorithm) bool) []string {
	var out []string
	for i := range All {
		if keep(&All[i]) {
			out = append(out, All[i].Name)
		}
	}
	return out
}

// hasVariant reports whether v is the default ("") or one of a's
// variants.
func (a *Algorithm) hasVariant(v string) bool {
	return v == "" || slices.ContainsFunc(a.Variants, func(x Variant) bool { return x.Name == v })
}

// VariantNames returns every variant name of the table, each once, in
// table order.
func VariantNames() []string {
	var out []string
	for _, a := range All {
		for _, v := range a.Variants {
			if !slices.Contains(out, v.Name) {
				out = append(out, v.Name)
			}
		}
	}
	return out
}

// VariantsOf returns the names of the algorithms that have variant v.
func VariantsOf(v string) []string {
	return names(func(a *Algorithm) bool { return v != "" && a.hasVariant(v) })
}

// Both is the --algo value that selects every recovery algorithm
// (Names).
const Both = "both"

// Select returns the algorithms an --algo value chooses: Both the
// recovery algorithms (Names), any other value itself.
func Select(algo string) []string {
	if algo == Both || algo == "" {
		return Names
	}
	return []string{algo}
}

// VariantRule is the one rule every command applies to --variant, as
// help states it.
const VariantRule = "a variant applies to the selected algorithms that have it (with --algo both, the others run as is); a variant that none of them has is a usage error"

// CheckVariant applies VariantRule: variant ("" for the default) must
// be a variant of at least one of the selected algorithms (names of the
// table).
func CheckVariant(variant string, selected []string) error {
	if variant == "" {
		return nil
	}
	if !slices.Contains(VariantNames(), variant) {
		return fmt.Errorf("--variant %q: want %s", variant, Choice(VariantNames()))
	}
	for _, name := range selected {
		if a, ok := Lookup(name); ok && a.hasVariant(variant) {
			return nil
		}
	}
	verb := "has"
	if len(selected) > 1 {
		verb = "have"
	}
	return fmt.Errorf("--variant %s: %s %s no %s variant (it applies to --algo %s)",
		variant, list(selected, "and"), verb, variant, Choice(VariantsOf(variant)))
}

// VariantFor returns the variant to replay algorithm name with under
// VariantRule: variant if name has it, else the default.
func VariantFor(name, variant string) string {
	if a, ok := Lookup(name); ok && a.hasVariant(variant) {
		return variant
	}
	return ""
}

// New returns a fresh state machine for algorithm name and variant ("" for
// the default) for the trace tr.
func New(name, variant string, tr *trace.Trace) (replay.Algorithm, error) {
	a, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("unknown algorithm %q (want %s)", name, Choice(AllNames))
	}
	return a.New(variant, tr)
}

// Choice joins names for messages and help: "ms", "ms or pk", "ms, pk or
// both".
func Choice(names []string) string { return list(names, "or") }

// list joins names as "ms", "ms and pk", "ms, pk and bcs" with conj
// ("and" or "or").
func list(names []string, conj string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + conj + " " + names[len(names)-1]
}

// HelpWidth is the width of help text: all ckpt's text fits 100 columns
// (cmd wraps its flag lists to it, render the table's help).
const HelpWidth = 100
