package cmd

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"
	"github.com/ckpt-dev/ckpt/trace/tracetest"

	"github.com/ckpt-dev/ckpt/internal/golden"
	"github.com/ckpt-dev/ckpt/report"
)

// reportCleanRun is a hand-written run in which every property holds (no
// failure, one message sent and received once).
const reportCleanRun = `{"format":"ckpt/run@1","algorithm":"ms","processes":["P0","P1"],"options":{"timing":"recorded"},"events":[
{"seq":0,"t":1,"p":"P0","kind":"send","msg":"m1","to":"P1","op":0,"copy":1,"pb":{"sn":0,"f":{}}},
{"seq":1,"t":2,"p":"P1","kind":"recv","msg":"m1","from":"P0","op":0,"copy":1,"via":"net"},
{"seq":2,"t":2,"p":"P0","kind":"end","state":"done"},
{"seq":3,"t":2,"p":"P1","kind":"end","state":"done"}
]}
`

// reportDupRun delivers m1 twice to P1's live history: no-duplicates
// fails.
const reportDupRun = `{"format":"ckpt/run@1","algorithm":"ms","processes":["P0","P1"],"options":{"timing":"recorded"},"events":[
{"seq":0,"t":1,"p":"P0","kind":"send","msg":"m1","to":"P1","op":0,"copy":1,"pb":{"sn":0,"f":{}}},
{"seq":1,"t":2,"p":"P1","kind":"recv","msg":"m1","from":"P0","op":0,"copy":1,"via":"net"},
{"seq":2,"t":3,"p":"P1","kind":"recv","msg":"m1","from":"P0","op":1,"copy":1,"via":"net"},
{"seq":3,"t":3,"p":"P0","kind":"end","state":"done"},
{"seq":4,"t":3,"p":"P1","kind":"end","state":"done"}
]}
`

func reportWrite(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func reportMain(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = Main(args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestReportExitCodes checks SPEC §8's exit statuses end to end, for
// every format and with -q.
func TestReportExitCodes(t *testing.T) {
	dir := t.TempDir()
	clean := reportWrite(t, dir, "clean.run.json", reportCleanRun)
	dup := reportWrite(t, dir, "dup.run.json", reportDupRun)
	bad := reportWrite(t, dir, "bad.json", `{"format":"ckpt/trace@1","processes":["P0"],"events":[{"t":1,"p":"P9","kind":"internal"}]}`)
	trunc := reportWrite(t, dir, "trunc.json", `{"format":"ckpt/run@1","algorithm":"ms","processes":["P0"],"events":[`)
	for _, format := range []string{"text", "json", "markdown", "junit"} {
		for _, quiet := range []bool{false, true} {
			args := func(file string) []string {
				a := []string{"report", "--format", format, file}
				if quiet {
					a = append(a, "-q")
				}
				return a
			}
			name := format
			if quiet {
				name += "-q"
			}
			t.Run(name, func(t *testing.T) {
				if code, out, errOut := reportMain(args(clean)...); code != ExitOK || errOut != "" {
					t.Errorf("clean run: exit %d, stderr %q, stdout:\n%s", code, errOut, out)
				}
				code, out, errOut := reportMain(args(dup)...)
				if code != ExitFailed || errOut != "" {
					t.Errorf("violating run: exit %d, stderr %q", code, errOut)
				}
				if quiet && out != dup+"\tms\tinvalid\n" {
					t.Errorf("quiet output %q", out)
				}
				if !quiet && !strings.Contains(out, "no-duplicates") {
					t.Errorf("output does not name the failed property:\n%s", out)
				}
				// Bad input: exit 2, one error on stderr naming the file, and
				// the file reported as an error in the output too (issue 15:
				// a CI reporter must see it).
				for _, f := range []string{bad, trunc, filepath.Join(dir, "missing.json")} {
					code, out, errOut := reportMain(args(f)...)
					if code != ExitInvalid || !strings.Contains(errOut, f) || strings.Count(errOut, "ckpt: ") != 1 {
						t.Errorf("%s: exit %d, stderr %q: want 2, one error naming the file", f, code, errOut)
					}
					if !strings.Contains(out, f) || !strings.Contains(strings.ToLower(out), "error") {
						t.Errorf("%s: stdout %q does not report the file as an error", f, out)
					}
					if strings.Contains(errOut, "Usage:") {
						t.Errorf("%s: usage dump for an input error", f)
					}
				}
			})
		}
	}
	for _, bad := range [][]string{
		{"report", "--format", "xml", clean},
		{"report", "--algo", "nope", clean},
		{"report"},
		{"report", clean, dup},
		{"report", "--no-such-flag", clean},
	} {
		if code, out, _ := reportMain(bad...); code != ExitInvalid || out != "" {
			t.Errorf("%v: exit %d, stdout %q, want 2 and nothing", bad, code, out)
		}
	}
}

// TestReportFormats checks that each format is what it claims on a real
// run: JSON and JUnit parse, markdown has tables, text has the recovery
// report's sections, and -o writes the same bytes to a file.
func TestReportFormats(t *testing.T) {
	dir := t.TempDir()
	dup := reportWrite(t, dir, "dup.run.json", reportDupRun)

	_, out, _ := reportMain("report", "--format", "json", dup)
	var reports []map[string]any
	if err := json.Unmarshal([]byte(out), &reports); err != nil || len(reports) != 1 || reports[0]["file"] != dup || reports[0]["valid"] != false {
		t.Errorf("json: %v, %d reports: %.200s", err, len(reports), out)
	}
	_, out, _ = reportMain("report", "--format", "junit", dup)
	var suites struct {
		Failures int `xml:"failures,attr"`
		Tests    int `xml:"tests,attr"`
	}
	if err := xml.Unmarshal([]byte(out), &suites); err != nil || suites.Failures == 0 || suites.Tests != len(report.PropertyNames) {
		t.Errorf("junit: %v, tests=%d failures=%d", err, suites.Tests, suites.Failures)
	}
	_, out, _ = reportMain("report", "--format", "markdown", dup)
	if !strings.Contains(out, "| property | status | violations |") || !strings.Contains(out, "❌") {
		t.Errorf("markdown:\n%s", out)
	}
	_, text, _ := reportMain("report", dup)
	for _, want := range []string{"INVALID", "Violations", "Statistics", "against uncoordinated checkpointing"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "\x1b[") {
		t.Error("colour when not writing to a terminal")
	}
	outFile := filepath.Join(dir, "report.txt")
	if code, out, _ := reportMain("report", "-o", outFile, dup); code != ExitFailed || out != "" {
		t.Errorf("-o: exit %d, stdout %q", code, out)
	}
	if b, err := os.ReadFile(outFile); err != nil || string(b) != text {
		t.Errorf("-o wrote %q (%v), want what stdout shows", b, err)
	}
	// A failed write leaves no file behind and exits 2.
	if code, _, errOut := reportMain("report", "-o", filepath.Join(dir, "no", "such", "dir.txt"), dup); code != ExitInvalid || errOut == "" {
		t.Errorf("unwritable -o: exit %d, stderr %q", code, errOut)
	}
}

// TestReportTrace replays a small trace with one failure through MS and
// checks the report end to end: the recovery table names every process.
func TestReportTrace(t *testing.T) {
	tr, err := tracetest.NewBuilder("P0", "P1", "P2").
		Send(0.1, "P0", "P1", "m1").
		Checkpoint(0.2, "P0").
		Recv(0.3, "P1", "m1").
		Send(0.4, "P1", "P2", "m2").
		Recv(0.5, "P2", "m2").
		Checkpoint(0.6, "P1").
		Internal(0.7, "P2").
		Fail(1.0, "P1").
		Send(1.1, "P0", "P2", "m3").
		Recv(1.2, "P2", "m3").
		Build()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := codec.WriteTrace(&buf, tr, codec.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	path := reportWrite(t, t.TempDir(), "small.json", buf.String())
	code, out, errOut := reportMain("report", "--algo", "ms", path)
	if code != ExitOK {
		t.Fatalf("exit %d, stderr %q\n%s", code, errOut, out)
	}
	for _, want := range []string{"· ms · VALID", "Failure 1 of 1: P1 failed at t=1", "P1 failed and restarted from checkpoint"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	// The same trace from stdin.
	var stdout, stderr bytes.Buffer
	if c := Main([]string{"report", "--algo", "ms", "-q", "-"}, strings.NewReader(buf.String()), &stdout, &stderr); c != ExitOK || stdout.String() != "-\tms\tvalid\n" {
		t.Errorf("stdin: exit %d, %q, stderr %q", c, stdout.String(), stderr.String())
	}
}

// TestReportGolden renders worked examples end to end — a bundled trace
// through MS and PK (clean) and a hand-written run that fails — in every
// format, against testdata/report/*.golden (go test -update rewrites
// them).
func TestReportGolden(t *testing.T) {
	// The run is a file of testdata, not of a temporary directory, so that
	// its name in the output is stable.
	dup := filepath.Join("testdata", "report", "dup.run.json")
	if b, err := os.ReadFile(dup); err != nil || string(b) != reportDupRun {
		t.Fatalf("%s must hold reportDupRun (%v)", dup, err)
	}
	cases := []struct {
		name string
		file string
		code int
	}{
		{"orphan", "../testdata/traces/orphan.json", ExitOK},
		{"dup-run", dup, ExitFailed},
	}
	for _, tc := range cases {
		for _, format := range []string{"text", "json", "markdown", "junit"} {
			name := tc.name + "." + format + ".golden"
			t.Run(name, func(t *testing.T) {
				code, out, errOut := reportMain("report", "--format", format, tc.file)
				if code != tc.code || errOut != "" {
					t.Fatalf("exit %d (want %d), stderr %q", code, tc.code, errOut)
				}
				golden.Check(t, filepath.Join("report", name), []byte(out))
			})
		}
	}
}
