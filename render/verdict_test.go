package render

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"github.com/ckpt-dev/ckpt/report"
	"strings"
	"testing"
	"unicode/utf8"
)

// foreignUnknown is a foreign run without op/copy fields: the checker
// can judge nothing, every property is unknown, and no property fails.
func foreignUnknown() report.Report {
	st := map[string]report.Status{}
	notes := map[string]string{}
	for _, n := range report.PropertyNames {
		st[n] = report.Unknown
		notes[n] = "the run has no op fields"
	}
	return report.Report{File: "foreign.run.json", Algorithm: "raft-ckpt", Valid: true, Properties: props(st, nil, notes)}
}

// noFailure is a clean MS report of a trace in which nothing fails.
func noFailure() report.Report {
	return report.Report{File: "quiet.json", Algorithm: "ms", Valid: true,
		Properties: props(map[string]report.Status{report.MinimalRollback: report.NA}, nil, map[string]string{report.MinimalRollback: "PK only"})}
}

// TestUnknownEveryFormat: a report in which nothing passed says UNKNOWN
// in every format, not VALID, and JSON keeps SPEC §9's "valid".
func TestUnknownEveryFormat(t *testing.T) {
	in := []report.Report{foreignUnknown()}
	// A heading too wide for 100 columns wraps at its " — ".
	text := strings.ReplaceAll(render(t, Text, in, Options{}), "\n— ", " — ")
	if !strings.Contains(text, "foreign.run.json · raft-ckpt · UNKNOWN — 0 of 10 applicable properties pass, 10 unknown") ||
		!strings.Contains(text, "Nothing was checked") || strings.Contains(text, "VALID") {
		t.Errorf("text:\n%s", text)
	}
	if md := render(t, Markdown, in, Options{}); !strings.Contains(md, "## ⚠️ `foreign.run.json` · raft-ckpt · UNKNOWN") {
		t.Errorf("markdown:\n%s", md)
	}
	var doc []map[string]any
	if err := json.Unmarshal([]byte(render(t, JSON, in, Options{})), &doc); err != nil {
		t.Fatal(err)
	}
	if doc[0]["verdict"] != "unknown" || doc[0]["valid"] != false || doc[0]["failures_exercised"] != float64(0) {
		t.Errorf("json: verdict %v valid %v failures_exercised %v", doc[0]["verdict"], doc[0]["valid"], doc[0]["failures_exercised"])
	}
	var ju junitDoc
	if err := xml.Unmarshal([]byte(render(t, JUnit, in, Options{})), &ju); err != nil {
		t.Fatal(err)
	}
	cases := ju.Suites[0].Cases
	if last := cases[len(cases)-1]; last.Name != "raft-ckpt/verdict" || last.Failure == nil || ju.Failures != 1 {
		t.Errorf("junit: last case %q failure %v, %d failures; want a failing raft-ckpt/verdict", last.Name, last.Failure, ju.Failures)
	}
	if q := render(t, Text, in, Options{Quiet: true}); q != "foreign.run.json\traft-ckpt\tunknown\n" {
		t.Errorf("quiet %q", q)
	}
}

// TestStrict: with Strict an unknown property makes the report unknown,
// and JUnit counts it as a failure.
func TestStrict(t *testing.T) {
	r := cleanPair()[1]
	r.Properties[len(r.Properties)-1] = report.Property{Name: report.Equivalence, Status: report.Unknown, Note: "no source trace"}
	in := []report.Report{r}
	unwrap := func(s string) string { return strings.ReplaceAll(s, "\n— ", " — ") }
	if text := unwrap(render(t, Text, in, Options{})); !strings.Contains(text, "· pk · VALID — 6 of 7 applicable properties pass, 1 unknown") {
		t.Errorf("not strict:\n%s", text)
	}
	text := unwrap(render(t, Text, in, Options{Strict: true}))
	if !strings.Contains(text, "· pk · UNKNOWN — 6 of 7 applicable properties pass, 1 unknown (--strict)") {
		t.Errorf("strict:\n%s", text)
	}
	out := render(t, JUnit, in, Options{Strict: true})
	if !strings.Contains(out, `<failure message="unknown (--strict): no source trace" type="unknown">`) ||
		!strings.Contains(out, `<property name="pk/verdict" value="unknown">`) {
		t.Errorf("junit strict:\n%s", out)
	}
	if q := render(t, JSON, in, Options{Strict: true}); !strings.Contains(q, `"verdict": "unknown"`) {
		t.Errorf("json strict:\n%s", q)
	}
}

// TestNoFailureExercised: a report without recoveries says so in its
// heading, points to ckpt explore, and JSON counts 0.
func TestNoFailureExercised(t *testing.T) {
	in := []report.Report{noFailure()}
	text := render(t, Text, in, Options{})
	if !strings.Contains(text, "quiet.json · ms · VALID — 8 of 8 applicable properties pass, no failure exercised") ||
		!strings.Contains(text, "ckpt explore TRACE injects failures") {
		t.Errorf("text:\n%s", text)
	}
	if md := render(t, Markdown, in, Options{}); !strings.Contains(md, "`ckpt explore TRACE` injects") {
		t.Errorf("markdown:\n%s", md)
	}
	if js := render(t, JSON, in, Options{}); !strings.Contains(js, `"failures_exercised": 0`) {
		t.Errorf("json:\n%s", js)
	}
	ju := render(t, JUnit, in, Options{})
	if !strings.Contains(ju, `<property name="ms/failures_exercised" value="0">`) || !strings.Contains(ju, "<system-out>ms: no failure happens here") {
		t.Errorf("junit:\n%s", ju)
	}
	// One failure: counted, no hint.
	one := cleanPair()[:1]
	if text := render(t, Text, one, Options{}); !strings.Contains(text, "1 failure exercised") || strings.Contains(text, "ckpt explore") {
		t.Errorf("one failure:\n%s", text)
	}
}

// TestNoRecoveryHint: a checkpoint-placement protocol's failure-free
// report (log-replay-rules n/a: nothing to recover) points to `ckpt
// compare`, not to `ckpt explore`, which refuses such protocols.
func TestNoRecoveryHint(t *testing.T) {
	r := noFailure()
	r.Algorithm = "bcs"
	for i := range r.Properties {
		if r.Properties[i].Name == report.LogReplayRules {
			r.Properties[i].Status = report.NA
		}
	}
	in := []report.Report{r}
	for _, f := range []Format{Text, Markdown, JUnit} {
		out := strings.Join(strings.Fields(render(t, f, in, Options{})), " ")
		if strings.Contains(out, "ckpt explore") || !strings.Contains(out, "bcs has no recovery") || !strings.Contains(out, "ckpt compare TRACE") {
			t.Errorf("%s:\n%s", f, out)
		}
	}
}

// TestErrorReports: a file that could not be checked is reported in every
// format beside the others.
func TestErrorReports(t *testing.T) {
	in := []report.Report{cleanPair()[0], report.ErrorReport("bad.json", "", `trace event 1: recv of "m9" before its send`),
		report.ErrorReport("t.json", "pk", "replaying through pk: stuck")}
	text := render(t, Text, in, Options{})
	for _, want := range []string{
		"bad.json · ERROR — not checked\n", "trace event 1: recv of \"m9\" before its send\n",
		"t.json · pk · ERROR — not checked", "Summary: 1 of 3 reports valid, 2 errors",
		"│ bad.json                    │ -         │ ERROR   │        - │",
		"  - bad.json: trace event 1: recv of \"m9\" before its send\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	md := render(t, Markdown, in, Options{})
	if !strings.Contains(md, "| bad.json | - | **ERROR** | - | trace event 1: recv of \"m9\" before its send |") ||
		!strings.Contains(md, "## ❌ `bad.json` · ERROR — not checked") {
		t.Errorf("markdown:\n%s", md)
	}
	js := render(t, JSON, in, Options{})
	var doc []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"file": `"bad.json"`, "algorithm": "null", "valid": "false", "properties": "[]",
		"recoveries": "[]", "baseline": "null", "stats": "null", "verdict": `"error"`, "failures_exercised": "0",
		"error": `"trace event 1: recv of \"m9\" before its send"`}
	for k, v := range want {
		if got := string(doc[1][k]); got != v {
			t.Errorf("json error entry %s = %s, want %s", k, got, v)
		}
	}
	if len(doc[1]) != len(want) || string(doc[2]["algorithm"]) != `"pk"` {
		t.Errorf("json error entries: %s", js)
	}
	if _, ok := doc[0]["error"]; ok {
		t.Error("a checked report has an error key")
	}
	var ju junitDoc
	out := render(t, JUnit, in, Options{})
	if err := xml.Unmarshal([]byte(out), &ju); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `<testsuites name="ckpt" tests="12" failures="0" errors="2" skipped="1">`) ||
		!strings.Contains(out, `<testcase name="input" classname="bad.json">`) ||
		!strings.Contains(out, `<error message="trace event 1: recv of &#34;m9&#34; before its send" type="error">`) ||
		!strings.Contains(out, `<testcase name="pk/input" classname="t.json">`) {
		t.Errorf("junit:\n%s", out)
	}
	q := render(t, Text, in, Options{Quiet: true})
	if !strings.Contains(q, "bad.json\t-\terror\n") || !strings.Contains(q, "t.json\tpk\terror\n") {
		t.Errorf("quiet:\n%s", q)
	}
}

// wideReport has twelve processes, so that the recovery table with its
// vector times is far wider than a terminal, and a long note.
func wideReport() report.Report {
	r := cleanPair()[1]
	r.Properties[5].Note = "PK checkpoints are uncoordinated and may be useless; see stats.checkpoints.useless"
	r.Stats.Checkpoints.Useless = 2
	rec := &r.Recoveries[0]
	rec.Line = nil
	for i := range 12 {
		pairs := make([]int32, 24)
		for j := range pairs {
			pairs[j] = int32(i + j)
		}
		rec.Line = append(rec.Line, report.LineEntry{P: fmt.Sprintf("Process%d", i), Restore: i32(int32(i)), VT: vt(pairs...),
			Pos: 100, Undone: 12, Replayed: 3, Discarded: 1, Resent: 2, Extra: ip(-3), Cause: "token"})
	}
	return r
}

// TestTextFits: every table line of a text rendering fits 100 columns;
// a note moved out of a table is still printed, with the count the
// checker's JSON path stood for.
func TestTextFits(t *testing.T) {
	long := report.ErrorReport("some/rather/long/directory/name/of/traces/broken-one.json", "",
		"trace event 12345 (line 12347): recv of \"message-with-a-long-identifier\" by P7, but it was sent to P3")
	in := append(append(cleanPair(), violatingPair()...), wideReport(), long)
	for _, full := range []bool{false, true} {
		out := render(t, Text, in, Options{Full: full})
		for i, line := range strings.Split(out, "\n") {
			if strings.ContainsAny(line[:min(len(line), 4)], "┌│├└") && utf8.RuneCountInString(line) > width {
				t.Errorf("full=%v line %d is %d wide: %s", full, i+1, utf8.RuneCountInString(line), line)
			}
		}
		if !strings.Contains(out, "  - z-cycle-free: PK checkpoints are uncoordinated and may be useless; 2 useless checkpoints in this\n    run\n") {
			t.Errorf("full=%v: the long note is not listed under its table:\n%s", full, out)
		}
		if strings.Contains(out, "stats.checkpoints.useless") {
			t.Errorf("full=%v: text points to a JSON path", full)
		}
		if !strings.Contains(out, "  - some/rather/long/directory/name/of/traces/broken-one.json: trace event 12345") {
			t.Errorf("full=%v: the error detail is not listed under the summary:\n%s", full, out)
		}
	}
	// The split repeats the key column: every process appears in each part.
	out := render(t, Text, []report.Report{wideReport()}, Options{Full: true})
	if n := strings.Count(out, "│ Process11 "); n < 2 {
		t.Errorf("the wide recovery table is not split with its key column repeated (%d rows of Process11):\n%s", n, out)
	}
	// Markdown keeps one table and the JSON path note says the count too.
	md := render(t, Markdown, []report.Report{wideReport()}, Options{})
	if !strings.Contains(md, "| z-cycle-free | n/a | 0 | PK checkpoints are uncoordinated and may be useless; 2 useless checkpoints in this run |") {
		t.Errorf("markdown note:\n%s", md)
	}
	if js := render(t, JSON, []report.Report{wideReport()}, Options{}); !strings.Contains(js, "see stats.checkpoints.useless") {
		t.Error("JSON must keep the checker's note as it is")
	}
}
