package render

import (
	"fmt"
	"strings"

	"github.com/ckpt-dev/ckpt/report"
)

// verdictWord is the verdict as a heading shows it, with its tone.
func verdictWord(v report.Verdict) (string, tone) {
	switch v {
	case report.VerdictValid:
		return "VALID", good
	case report.VerdictUnknown:
		return "UNKNOWN", warn
	case report.VerdictInvalid:
		return "INVALID", bad
	}
	return "ERROR", bad
}

// verdictSummary is the short explanation after the verdict word: counts
// over the applicable properties (n/a ones left out, so that "7 of 7"
// does not read like a failure), then how many failures were exercised.
func verdictSummary(r *report.Report) string {
	if r.Verdict == report.VerdictError {
		return "not checked"
	}
	c := r.Counts()
	var s string
	if c.Fail > 0 {
		s = fmt.Sprintf("%d of %d applicable properties fail", c.Fail, c.Applicable())
	} else {
		s = fmt.Sprintf("%d of %d applicable properties pass", c.Pass, c.Applicable())
	}
	if c.Unknown > 0 {
		s += fmt.Sprintf(", %d unknown", c.Unknown)
	}
	if r.Verdict == report.VerdictUnknown && c.Pass > 0 {
		s += " (--strict)"
	}
	if len(r.Recoveries) == 0 {
		return s + ", no failure exercised"
	}
	return s + ", " + plural(len(r.Recoveries), "failure", "failures") + " exercised"
}

// The commands a report in which no failure happens points to; markdown
// sets them as code.
const (
	exploreHint = "ckpt explore TRACE"
	compareHint = "ckpt compare TRACE"
)

// recovers reports whether r's algorithm has a recovery that failures
// would exercise. The checker judges log-replay-rules n/a only for a
// checkpoint-placement protocol (bcs, fdas, hmnr, coordinated) on a
// failure-free run: such a protocol has no recovery, and `ckpt explore`,
// which injects failures, refuses it.
func recovers(r *report.Report) bool {
	s, ok := r.Status(report.LogReplayRules)
	return !ok || s != report.NA
}

// verdictBlocks explain, under a report's heading, what its verdict does
// not show: why it could not be checked, why nothing was, or that
// recovery never ran.
func verdictBlocks(r *report.Report) []block {
	para := func(text string) block { return block{kind: para, text: text} }
	if r.Verdict == report.VerdictError {
		return []block{para(r.Error)}
	}
	var out []block
	c := r.Counts()
	switch {
	case r.Verdict == report.VerdictUnknown && c.Pass == 0:
		out = append(out, para("Nothing was checked: no applicable property passes, so this is no evidence "+
			"that recovery is correct (exit status 1). The notes say what each property lacks."))
	case r.Verdict == report.VerdictUnknown:
		out = append(out, para("--strict: a property the run cannot show (unknown) makes the verdict unknown (exit status 1)."))
	}
	switch {
	case len(r.Recoveries) > 0:
	case recovers(r):
		b := para("No failure happens here, so recovery was not exercised: only failure-free behaviour " +
			"was checked. " + exploreHint + " injects failures at every point and checks each recovery.")
		b.code = exploreHint
		out = append(out, b)
	default:
		b := para("No failure happens here, and " + r.Algorithm + " has no recovery (it places checkpoints in " +
			"failure-free runs): only failure-free behaviour was checked. " + compareHint +
			" measures how far a failure would roll it back.")
		b.code = compareHint
		out = append(out, b)
	}
	return out
}

// displayNote is a property's note as people read it. The checker's
// notes may point at a JSON path (stats.checkpoints.useless) that text,
// markdown and JUnit never show: there the count itself is given.
func displayNote(r *report.Report, p *report.Property) string {
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
