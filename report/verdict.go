package report

import (
	"fmt"
	"strings"
)

// Verdict is a report's overall verdict, the one CI gates on. Valid
// (SPEC §9) only says that no property fails; a verdict also says whether
// anything was shown to hold.
type Verdict string

// The verdicts, from best to worst.
const (
	// VerdictValid: no property fails and at least one applicable
	// property passes (with --strict: and none is unknown).
	VerdictValid Verdict = "valid"
	// VerdictUnknown: no property fails, but none passes either (a
	// foreign run that lacks what every property needs), or --strict and
	// some property is unknown. Not evidence of correctness: exit 1.
	VerdictUnknown Verdict = "unknown"
	// VerdictInvalid: a property fails (exit 1).
	VerdictInvalid Verdict = "invalid"
	// VerdictError: the file could not be read or replayed (exit 2).
	VerdictError Verdict = "error"
)

// rank orders verdicts from best to worst.
func (v Verdict) rank() int {
	switch v {
	case VerdictValid:
		return 0
	case VerdictUnknown:
		return 1
	case VerdictInvalid:
		return 2
	default:
		return 3
	}
}

// ErrorReport is the entry of a file that could not be checked: invalid
// input, or a replay that could not run. msg says why, without the file
// name (the entry has it); algorithm is "" when the failure is not the
// algorithm's (the file could not be read).
func ErrorReport(file, algorithm, msg string) Report {
	return Report{File: file, Algorithm: algorithm, Error: msg, Verdict: VerdictError}
}

// statusCounts counts a report's properties by status.
type statusCounts struct{ pass, fail, na, unknown int }

func countStatuses(r *Report) statusCounts {
	var c statusCounts
	for _, p := range r.Properties {
		switch p.Status {
		case Pass:
			c.pass++
		case Fail:
			c.fail++
		case NA:
			c.na++
		default:
			c.unknown++
		}
	}
	return c
}

// applicable is the number of properties that are not n/a.
func (c statusCounts) applicable() int { return c.pass + c.fail + c.unknown }

// Judge returns r's verdict. strict makes any unknown property turn a
// report that would be valid into unknown.
func Judge(r *Report, strict bool) Verdict {
	if r.Error != "" || r.Verdict == VerdictError {
		return VerdictError
	}
	c := countStatuses(r)
	switch {
	case !r.Valid || c.fail > 0:
		return VerdictInvalid
	case c.pass == 0 || (strict && c.unknown > 0):
		return VerdictUnknown
	}
	return VerdictValid
}

// judged returns a copy of r with Verdict and FailuresExercised filled,
// as every rendering shows them.
func judged(r Report, strict bool) Report {
	r.Verdict = Judge(&r, strict)
	r.FailuresExercised = len(r.Recoveries)
	return r
}

// Worst returns the worst verdict of reports (valid for none): the exit
// status of SPEC §8 follows it — 0 valid, 1 invalid or unknown, 2 error.
func Worst(reports []Report, strict bool) Verdict {
	w := VerdictValid
	for i := range reports {
		if v := Judge(&reports[i], strict); v.rank() > w.rank() {
			w = v
		}
	}
	return w
}

// verdictWord is the verdict as a heading shows it, with its tone.
func verdictWord(v Verdict) (string, tone) {
	switch v {
	case VerdictValid:
		return "VALID", good
	case VerdictUnknown:
		return "UNKNOWN", warn
	case VerdictInvalid:
		return "INVALID", bad
	}
	return "ERROR", bad
}

// verdictSummary is the short explanation after the verdict word: counts
// over the applicable properties (n/a ones left out, so that "7 of 7"
// does not read like a failure), then how many failures were exercised.
func verdictSummary(r *Report, v Verdict) string {
	if v == VerdictError {
		return "not checked"
	}
	c := countStatuses(r)
	var s string
	if c.fail > 0 {
		s = fmt.Sprintf("%d of %d applicable properties fail", c.fail, c.applicable())
	} else {
		s = fmt.Sprintf("%d of %d applicable properties pass", c.pass, c.applicable())
	}
	if c.unknown > 0 {
		s += fmt.Sprintf(", %d unknown", c.unknown)
	}
	if v == VerdictUnknown && c.pass > 0 {
		s += " (--strict)"
	}
	return s + ", " + failuresPhrase(len(r.Recoveries))
}

func failuresPhrase(n int) string {
	if n == 0 {
		return "no failure exercised"
	}
	return plural(n, "failure", "failures") + " exercised"
}

// exploreHint is the command a paragraph points to when no failure was
// exercised; markdown sets it as code.
const exploreHint = "ckpt explore TRACE"

// verdictBlocks explain, under a report's heading, what its verdict does
// not show: why it could not be checked, why nothing was, or that
// recovery never ran.
func verdictBlocks(r *Report) []block {
	para := func(text string) block { return block{kind: paraBlock, text: text} }
	if r.Verdict == VerdictError {
		return []block{para(r.Error)}
	}
	var out []block
	c := countStatuses(r)
	switch {
	case r.Verdict == VerdictUnknown && c.pass == 0:
		out = append(out, para("Nothing was checked: no applicable property passes, so this is no evidence "+
			"that recovery is correct (exit status 1). The notes say what each property lacks."))
	case r.Verdict == VerdictUnknown:
		out = append(out, para("--strict: a property the run cannot show (unknown) makes the verdict unknown (exit status 1)."))
	}
	if len(r.Recoveries) == 0 {
		b := para("No failure happens here, so recovery was not exercised: only failure-free behaviour " +
			"was checked. " + exploreHint + " injects failures at every point and checks each recovery.")
		b.code = exploreHint
		out = append(out, b)
	}
	return out
}

// displayNote is a property's note as people read it. The checker's
// notes may point at a JSON path (stats.checkpoints.useless) that text,
// markdown and JUnit never show: there the count itself is given.
func displayNote(r *Report, p *Property) string {
	const path = "stats.checkpoints.useless"
	if !strings.Contains(p.Note, path) {
		return p.Note
	}
	n := plural(r.Stats.Checkpoints.Useless, "useless checkpoint", "useless checkpoints") + " in this run"
	if s := strings.Replace(p.Note, "see "+path, n, 1); s != p.Note {
		return s
	}
	return strings.Replace(p.Note, path, n, 1)
}
