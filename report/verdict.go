package report

import "slices"

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

// byRank lists the verdicts from best to worst.
var byRank = []Verdict{VerdictValid, VerdictUnknown, VerdictInvalid, VerdictError}

// ErrorReport is the entry of a file that could not be checked: invalid
// input, or a replay that could not run. msg says why, without the file
// name (the entry has it); algorithm is "" when the failure is not the
// algorithm's (the file could not be read).
func ErrorReport(file, algorithm, msg string) Report {
	return Report{File: file, Algorithm: algorithm, Error: msg, Verdict: VerdictError}
}

// Counts are a report's properties counted by status.
type Counts struct{ Pass, Fail, NA, Unknown int }

// Counts counts r's properties by status.
func (r *Report) Counts() Counts {
	var c Counts
	for _, p := range r.Properties {
		switch p.Status {
		case Pass:
			c.Pass++
		case Fail:
			c.Fail++
		case NA:
			c.NA++
		default:
			c.Unknown++
		}
	}
	return c
}

// Status returns the status of r's property name; ok is false when r
// has no such property (an error entry, or one the algorithm's report
// leaves out).
func (r *Report) Status(name string) (s Status, ok bool) {
	for _, p := range r.Properties {
		if p.Name == name {
			return p.Status, true
		}
	}
	return "", false
}

// Applicable is the number of properties that are not n/a.
func (c Counts) Applicable() int { return c.Pass + c.Fail + c.Unknown }

// Judge returns r's verdict. strict makes any unknown property turn a
// report that would be valid into unknown.
func Judge(r *Report, strict bool) Verdict {
	if r.Error != "" || r.Verdict == VerdictError {
		return VerdictError
	}
	c := r.Counts()
	switch {
	case !r.Valid || c.Fail > 0:
		return VerdictInvalid
	case c.Pass == 0 || (strict && c.Unknown > 0):
		return VerdictUnknown
	}
	return VerdictValid
}

// Judged returns a copy of r with Verdict and FailuresExercised filled,
// as every rendering shows them.
func Judged(r Report, strict bool) Report {
	r.Verdict = Judge(&r, strict)
	r.FailuresExercised = len(r.Recoveries)
	return r
}

// Worst returns the worst verdict of reports (valid for none): the exit
// status of SPEC §8 follows it — 0 valid, 1 invalid or unknown, 2 error.
func Worst(reports []Report, strict bool) Verdict {
	w := VerdictValid
	for i := range reports {
		if v := Judge(&reports[i], strict); slices.Index(byRank, v) > slices.Index(byRank, w) {
			w = v
		}
	}
	return w
}
