package report

import "testing"

// judged is a report whose properties have the given statuses, in
// order, named after PropertyNames.
func judged(valid bool, statuses ...Status) Report {
	r := Report{File: "f.json", Algorithm: "ms", Valid: valid}
	for i, s := range statuses {
		r.Properties = append(r.Properties, Property{Name: PropertyNames[i], Status: s})
	}
	return r
}

func TestJudge(t *testing.T) {
	tests := []struct {
		name   string
		r      Report
		strict bool
		want   Verdict
	}{
		{"all pass", judged(true, Pass, Pass), false, VerdictValid},
		{"pass and n/a", judged(true, Pass, NA), false, VerdictValid},
		{"a failure", judged(false, Pass, Fail), false, VerdictInvalid},
		{"fail beside unknown", judged(false, Fail, Unknown), false, VerdictInvalid},
		{"a failure the checker did not flag", judged(true, Pass, Fail), false, VerdictInvalid},
		{"invalid without a failed property", judged(false), false, VerdictInvalid},
		{"nothing passes", judged(true, Unknown, Unknown), false, VerdictUnknown},
		{"nothing applicable", judged(true, NA, NA), false, VerdictUnknown},
		{"some unknown", judged(true, Pass, Unknown), false, VerdictValid},
		{"some unknown, strict", judged(true, Pass, Unknown), true, VerdictUnknown},
		{"strict, nothing unknown", judged(true, Pass, NA), true, VerdictValid},
		{"strict does not hide a failure", judged(false, Fail, Unknown), true, VerdictInvalid},
		{"error", ErrorReport("bad.json", "", "trace event 3: boom"), false, VerdictError},
	}
	for _, tc := range tests {
		if got := Judge(&tc.r, tc.strict); got != tc.want {
			t.Errorf("%s: Judge = %s, want %s", tc.name, got, tc.want)
		}
	}
	if w := Worst(nil, false); w != VerdictValid {
		t.Errorf("Worst(nil) = %s", w)
	}
	mixed := []Report{judged(true, Pass), judged(true, Unknown)}
	if w := Worst(mixed, false); w != VerdictUnknown {
		t.Errorf("Worst(valid, unknown) = %s", w)
	}
	mixed = append(mixed, judged(false, Fail))
	if w := Worst(mixed, false); w != VerdictInvalid {
		t.Errorf("Worst(.., invalid) = %s", w)
	}
	mixed = append(mixed, ErrorReport("x", "", "y"), judged(true, Pass))
	if w := Worst(mixed, false); w != VerdictError {
		t.Errorf("Worst(.., error, valid) = %s", w)
	}
}

// TestJudged: a judged copy carries its verdict and failures exercised,
// and the original is left as it was.
func TestJudged(t *testing.T) {
	r := judged(true, Pass)
	r.Recoveries = make([]Recovery, 2)
	j := Judged(r, false)
	if j.Verdict != VerdictValid || j.FailuresExercised != 2 || r.Verdict != "" {
		t.Errorf("Judged: verdict %q, %d failures exercised; original verdict %q", j.Verdict, j.FailuresExercised, r.Verdict)
	}
	all := judged(true, Pass, Fail, NA, Unknown)
	if c := all.Counts(); c != (Counts{1, 1, 1, 1}) || c.Applicable() != 3 {
		t.Errorf("Counts = %+v, applicable %d", c, c.Applicable())
	}
}
