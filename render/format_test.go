package render

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"github.com/ckpt-dev/ckpt/report"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
)

// TestJSONRoundTrip parses the JSON back with encoding/json and compares
// it field by field with the input (nil lists read back as empty ones).
func TestJSONRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name    string
		reports []report.Report
	}{
		{"clean", cleanPair()},
		{"violating", violatingPair()},
		{"empty", nil},
		{"bare", []report.Report{{File: "x.json", Algorithm: "ms"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := render(t, JSON, tc.reports, Options{})
			var got []report.Report
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, out)
			}
			if len(got) != len(tc.reports) {
				t.Fatalf("%d reports read back, want %d", len(got), len(tc.reports))
			}
			for i := range got {
				want := normalized(report.Judged(tc.reports[i], false))
				if !reflect.DeepEqual(got[i], want) {
					t.Errorf("report %d read back differs:\n got %+v\nwant %+v", i, got[i], want)
				}
			}
		})
	}
}

// TestJSONShape checks the contract of SPEC §9 on the raw JSON: field
// order, [] for empty lists, null where the spec shows null.
func TestJSONShape(t *testing.T) {
	in := append(cleanPair(), report.Report{File: "bare.json", Algorithm: "ms",
		Properties: []report.Property{{Name: report.OrphanFree, Status: report.Pass}},
		Recoveries: []report.Recovery{{RecLine: new(int32)}}})
	out := render(t, JSON, in, Options{})
	if !strings.HasPrefix(out, "[\n  {\n    \"file\"") || !strings.HasSuffix(out, "]\n") {
		t.Errorf("not an indented top-level array with a trailing newline:\n%.80s", out)
	}
	if strings.Contains(out, "\\u003c") {
		t.Error("HTML escaping in JSON output")
	}
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	// Top-level field order as in schema.go.
	wantOrder := []string{"file", "algorithm", "valid", "properties", "recoveries", "baseline", "stats"}
	dec := json.NewDecoder(strings.NewReader(out))
	var keys []string
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				depth++
			} else {
				depth--
			}
		case string:
			if depth == 2 && len(keys) < len(wantOrder) && dec.More() {
				keys = append(keys, v)
				// Skip the value.
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					t.Fatal(err)
				}
			}
		}
		if len(keys) == len(wantOrder) {
			break
		}
	}
	if !reflect.DeepEqual(keys, wantOrder) {
		t.Errorf("field order %v, want %v", keys, wantOrder)
	}

	type anyMap = map[string]any
	var doc []anyMap
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	isArray := func(v any) bool { _, ok := v.([]any); return ok }
	ms, pk, bare := doc[0], doc[1], doc[2]
	msRec := ms["recoveries"].([]any)[0].(anyMap)
	pkRec := pk["recoveries"].([]any)[0].(anyMap)
	if msRec["announcement"] != nil || msRec["rec_line"] != float64(3) {
		t.Errorf("MS recovery: announcement %v rec_line %v, want null and 3", msRec["announcement"], msRec["rec_line"])
	}
	if pkRec["rec_line"] != nil || pkRec["announcement"] == nil {
		t.Errorf("PK recovery: rec_line %v announcement %v, want null and an object", pkRec["rec_line"], pkRec["announcement"])
	}
	msEntry := msRec["line"].([]any)[0].(anyMap)
	if v, ok := msEntry["vt"]; !ok || v != nil {
		t.Errorf("MS line entry vt = %v (present %v), want null", v, ok)
	}
	pkEntry := pkRec["line"].([]any)[0].(anyMap)
	if v, ok := pkEntry["sn"]; !ok || v != nil {
		t.Errorf("PK line entry sn = %v (present %v), want null", v, ok)
	}
	if got, _ := json.Marshal(pkEntry["vt"]); string(got) != "[[0,3],[0,1],[0,0]]" {
		t.Errorf("PK vt = %s, want [[0,3],[0,1],[0,0]]", got)
	}
	if e := ms["recoveries"].([]any)[0].(anyMap)["line"].([]any)[2].(anyMap); e["restore"] != nil {
		t.Errorf("a process that did not roll back has restore %v, want null", e["restore"])
	}
	if !isArray(bare["properties"].([]any)[0].(anyMap)["violations"]) {
		t.Error("empty violations not written as []")
	}
	if !isArray(bare["recoveries"].([]any)[0].(anyMap)["line"]) {
		t.Error("empty recovery line not written as []")
	}
	if !isArray(bare["baseline"].(anyMap)["uncoordinated"].(anyMap)["line"]) {
		t.Error("empty baseline line not written as []")
	}
	v := doc[0]["properties"].([]any)[0].(anyMap)["violations"]
	if !isArray(v) {
		t.Error("violations not an array")
	}
	if got := render(t, JSON, nil, Options{}); got != "[]\n" {
		t.Errorf("no reports: %q, want \"[]\\n\"", got)
	}
	// Normalizing must not write into the caller's reports.
	in2 := []report.Report{{File: "a", Properties: []report.Property{{Name: report.OrphanFree}}}}
	render(t, JSON, in2, Options{})
	if in2[0].Properties[0].Violations != nil || in2[0].Recoveries != nil {
		t.Error("Render changed its input")
	}
}

type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// TestJUnitParse reads the JUnit XML back with encoding/xml and checks
// its counts against the reports.
func TestJUnitParse(t *testing.T) {
	both := append(cleanPair(), violatingPair()...)
	// A label with a control character must not make the file unparsable.
	both[2].Properties[0].Violations[0].Message += " label \x01\x1b end"
	out := render(t, JUnit, both, Options{})
	var doc junitDoc
	if err := xml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not valid XML: %v\n%s", err, out)
	}
	// 4 reports × 10 properties; clean: 2 n/a; violating: 3 fails (one
	// property with 2 witnesses counts once), 3 n/a + 1 unknown; and rdt
	// n/a in each of the 4.
	if doc.Tests != 40 || doc.Failures != 3 || doc.Skipped != 10 {
		t.Errorf("testsuites: tests=%d failures=%d skipped=%d, want 40 3 10", doc.Tests, doc.Failures, doc.Skipped)
	}
	if len(doc.Suites) != 2 {
		t.Fatalf("%d testsuites, want one per file (2)", len(doc.Suites))
	}
	for _, s := range doc.Suites {
		f, sk := 0, 0
		for _, c := range s.Cases {
			if c.Classname != s.Name {
				t.Errorf("case %s: classname %q, want the file %q", c.Name, c.Classname, s.Name)
			}
			if c.Failure != nil {
				f++
			}
			if c.Skipped != nil {
				sk++
			}
			if c.Failure != nil && c.Skipped != nil {
				t.Errorf("case %s both failed and skipped", c.Name)
			}
		}
		if s.Tests != len(s.Cases) || s.Failures != f || s.Skipped != sk {
			t.Errorf("suite %s: counts %d/%d/%d, cases say %d/%d/%d", s.Name, s.Tests, s.Failures, s.Skipped, len(s.Cases), f, sk)
		}
	}
	v := doc.Suites[1]
	if v.Cases[0].Name != "ms-textbook/orphan-free" || v.Cases[0].Failure == nil {
		t.Fatalf("first violating case %q failure %v, want ms-textbook/orphan-free failing", v.Cases[0].Name, v.Cases[0].Failure)
	}
	fail := v.Cases[0].Failure
	if !strings.Contains(fail.Message, "(and 1 more)") || !strings.Contains(fail.Text, "run seqs 21, 60") ||
		!strings.Contains(fail.Text, "because m7|x was sent") {
		t.Errorf("failure lacks the witnesses:\nmessage %q\n%s", fail.Message, fail.Text)
	}
	last := v.Cases[len(v.Cases)-1]
	if last.Name != "pk/equivalence" || last.Skipped == nil || last.Skipped.Message != "unknown: run has no source trace" {
		t.Errorf("unknown property: case %q skipped %+v", last.Name, last.Skipped)
	}

	var empty junitDoc
	if err := xml.Unmarshal([]byte(render(t, JUnit, nil, Options{})), &empty); err != nil || empty.Tests != 0 {
		t.Errorf("no reports: %v, tests=%d", err, empty.Tests)
	}
}

// mdCells counts the cells of a markdown table row, honouring \| escapes.
func mdCells(line string) int {
	n := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '|':
			n++
		}
	}
	return n - 1
}

// TestMarkdownTables checks that every table is well formed: a header, a
// delimiter row, and rows with the header's number of cells.
func TestMarkdownTables(t *testing.T) {
	for _, full := range []bool{false, true} {
		out := render(t, Markdown, append(cleanPair(), violatingPair()...), Options{Full: full})
		lines := strings.Split(out, "\n")
		tables := 0
		for i := 0; i < len(lines); i++ {
			if !strings.HasPrefix(lines[i], "|") {
				continue
			}
			tables++
			want := mdCells(lines[i])
			if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "| ---") {
				t.Fatalf("table at line %d has no delimiter row", i+1)
			}
			if i > 0 && lines[i-1] != "" {
				t.Errorf("table at line %d not preceded by a blank line", i+1)
			}
			for ; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
				if got := mdCells(lines[i]); got != want || !strings.HasSuffix(lines[i], "|") {
					t.Errorf("line %d has %d cells, header has %d: %s", i+1, got, want, lines[i])
				}
			}
		}
		if want := map[bool]int{false: 5, true: 21}[full]; tables != want {
			t.Errorf("full=%v: %d tables, want %d", full, tables, want)
		}
		if !strings.Contains(out, `m7\|x`) {
			t.Error("pipe in a message not escaped")
		}
		// Valid reports among several fold away, invalid ones stay open.
		if o, c := strings.Count(out, "<details>"), strings.Count(out, "</details>"); o != 2 || c != 2 {
			t.Errorf("full=%v: %d <details> and %d </details>, want 2 folded valid reports", full, o, c)
		}
		if strings.Contains(out, "<summary>✅ <code>testdata/traces/concurrent.json") || !strings.Contains(out, "## ❌ `testdata/traces/concurrent.json`") {
			t.Error("an invalid report is folded")
		}
	}
}

func TestQuiet(t *testing.T) {
	in := append(cleanPair(), violatingPair()...)
	want := "testdata/traces/forced.json\tms\tvalid\n" +
		"testdata/traces/forced.json\tpk\tvalid\n" +
		"testdata/traces/concurrent.json\tms-textbook\tinvalid\n" +
		"testdata/traces/concurrent.json\tpk\tinvalid\n"
	for _, f := range Formats {
		for _, full := range []bool{false, true} {
			if got := render(t, f, in, Options{Quiet: true, Full: full, Color: true}); got != want {
				t.Errorf("%s quiet:\n%s\nwant\n%s", f, got, want)
			}
		}
	}
}

func TestBadFormat(t *testing.T) {
	var buf bytes.Buffer
	for _, f := range []Format{"xml", "TEXT", " text"} {
		if err := Reports(&buf, f, cleanPair(), Options{}); err == nil {
			t.Errorf("format %q accepted", f)
		}
	}
	if buf.Len() != 0 {
		t.Errorf("a rejected format wrote %q", buf.String())
	}
	if render(t, "", cleanPair(), Options{}) != render(t, Text, cleanPair(), Options{}) {
		t.Error("the zero Format is not text")
	}
}

func TestColor(t *testing.T) {
	out := render(t, Text, violatingPair(), Options{Color: true, Full: true})
	for _, want := range []string{"\x1b[1;31mINVALID", "\x1b[1;31mfail\x1b[0m", "\x1b[32mpass\x1b[0m", "\x1b[33mn/a\x1b[0m"} {
		if !strings.Contains(out, want) {
			t.Errorf("coloured text lacks %q", want)
		}
	}
	for _, f := range []Format{Markdown, JSON, JUnit} {
		if strings.Contains(render(t, f, violatingPair(), Options{Color: true, Full: true}), "\x1b") {
			t.Errorf("%s output has ANSI escapes", f)
		}
	}
}

// TestTextAligned checks that every line of every text table has the
// same width: what a reader's eye relies on to scan a column.
func TestTextAligned(t *testing.T) {
	out := render(t, Text, append(cleanPair(), violatingPair()...), Options{Full: true})
	width := -1
	for i, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "┌") && !strings.HasPrefix(line, "│") && !strings.HasPrefix(line, "├") && !strings.HasPrefix(line, "└") {
			width = -1
			continue
		}
		w := len([]rune(line))
		if width < 0 {
			width = w
		} else if w != width {
			t.Errorf("line %d is %d wide, its table %d: %s", i+1, w, width, line)
		}
	}
}

func TestFormatVT(t *testing.T) {
	tests := []struct {
		in   []int32
		want string
	}{
		{nil, "-"},
		{[]int32{}, "[]"},
		{[]int32{0, 3, 0, 1}, "[3 1]"},
		{[]int32{2, 3, 0, 1}, "[2:3 1]"},
	}
	for _, tc := range tests {
		var v = vt(tc.in...)
		if tc.in == nil {
			v = nil
		}
		if got := formatVT(v); got != tc.want {
			t.Errorf("formatVT(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestXMLSafe(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"a\tb\nc", "a\tb\nc"},
		{"bell\x07", "bell\uFFFD"},
		{"bad\xffutf8", "bad\uFFFDutf8"},
	}
	for _, tc := range tests {
		if got := xmlSafe(tc.in); got != tc.want {
			t.Errorf("xmlSafe(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestStoryLine(t *testing.T) {
	tests := []struct {
		e    report.LineEntry
		want string
	}{
		{report.LineEntry{P: "P2", Pos: 7, Cause: "none"}, "P2 kept its state (nothing undone)"},
		{report.LineEntry{P: "P2", Pos: 7, Cause: "request"}, "P2 handled the failure (request) without rolling back"},
		{report.LineEntry{P: "P2", Pos: 7, Cause: "recovery"}, "P2 took a recovery checkpoint instead of rolling back (nothing undone)"},
		{report.LineEntry{P: "P2", Restore: i32(1), Pos: 7, Undone: 1, Cause: "rollback"}, "P2 rolled back to checkpoint 1, undoing 1 op, resuming at op 7"},
		{report.LineEntry{P: "P0", Restore: i32(2), Sn: i32(3), Pos: 5, Undone: 4, Replayed: 1, Extra: ip(1), Cause: "request"},
			"P0 rolled back to checkpoint 2 (sn 3) on a Rollback request, undoing 4 ops, replaying 1 message from the log, resuming at op 5; 1 op more than the maximum consistent line"},
		{report.LineEntry{P: "P1", Restore: i32(2), Sn: i32(2), Pos: 9, Cause: "restart"},
			"P1 failed and restarted from checkpoint 2 (sn 2), undoing nothing, resuming at op 9"},
		{report.LineEntry{P: "P1", Restore: i32(1), VT: vt(0, 3, 1, 2), Pos: 3, Undone: 1, Extra: ip(-2), Cause: "token"},
			"P1 rolled back to checkpoint 1 (vt [3 1:2]) on the failure token, its state being an orphan, undoing 1 op, resuming at op 3; logging saved 2 ops against the maximum consistent line"},
		{report.LineEntry{P: "P1", Restore: i32(1), Pos: 3, Undone: 2, Cause: "message"},
			"P1 rolled back to checkpoint 1 on a message from a recovery it had not applied, undoing 2 ops, resuming at op 3"},
	}
	for _, tc := range tests {
		if got := storyLine(tc.e); got != tc.want {
			t.Errorf("storyLine(%+v):\n got %s\nwant %s", tc.e, got, tc.want)
		}
	}
}

// bigReport is a report of 200 failures over 32 processes, with 500
// violations: the size of a long generated trace.
func bigReport() []report.Report {
	r := cleanPair()[0]
	r.Valid = false
	line := make([]report.LineEntry, 32)
	maxLine := make([]report.MaxLineEntry, 32)
	for p := range line {
		name := "P" + strconv.Itoa(p)
		line[p] = report.LineEntry{P: name, Restore: i32(int32(p)), Sn: i32(int32(p)), Pos: int32(p * 10), Undone: p, Cause: "request"}
		maxLine[p] = report.MaxLineEntry{P: name, Ckpt: int32(p), Pos: int32(p * 10)}
	}
	r.Recoveries = nil
	for f := 0; f < 200; f++ {
		r.Recoveries = append(r.Recoveries, report.Recovery{Failure: report.FailureRef{P: "P1", T: trace.Time(f) * sec, Seq: int32(f)},
			RecLine: i32(int32(f)), Line: line, MaxLine: maxLine})
	}
	for i := 0; i < 500; i++ {
		r.Properties[0].Violations = append(r.Properties[0].Violations, report.Violation{Property: report.OrphanFree,
			Message: "P2 keeps an orphan", Seqs: []int32{int32(i), int32(i + 1)}, Because: strings.Repeat("because of that, ", 10)})
	}
	r.Properties[0].Status = report.Fail
	return []report.Report{r}
}

func BenchmarkRender(b *testing.B) {
	in := bigReport()
	for _, f := range Formats {
		b.Run(string(f), func(b *testing.B) {
			for b.Loop() {
				if err := Reports(io.Discard, f, in, Options{Full: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestSparseReports renders reports with every optional part missing (a
// foreign run, a checker that gave up early): no panic, no error.
func TestSparseReports(t *testing.T) {
	sparse := [][]report.Report{
		{{}},
		{{File: "a", Algorithm: "x", Recoveries: []report.Recovery{{}}}},
		{{File: "a", Algorithm: "ms", Recoveries: []report.Recovery{{RecLine: i32(0), Line: []report.LineEntry{{P: "P0"}}, MaxLine: []report.MaxLineEntry{{P: "P9"}}}},
			Baseline: report.Baseline{Uncoordinated: report.Uncoordinated{Line: []report.UncoordinatedFailure{{}}}}}},
		{{File: "a", Properties: []report.Property{{Name: "custom", Status: report.Fail}}}, {File: "a", Algorithm: "pk"}},
	}
	for i, in := range sparse {
		for _, f := range Formats {
			for _, full := range []bool{false, true} {
				var buf bytes.Buffer
				if err := Reports(&buf, f, in, Options{Full: full}); err != nil {
					t.Errorf("case %d %s full=%v: %v", i, f, full, err)
				}
			}
		}
	}
	out := render(t, JUnit, sparse[3], Options{})
	if !strings.Contains(out, `<failure message="property custom fails" type="custom">`) {
		t.Errorf("a failed property without witnesses:\n%s", out)
	}
}
