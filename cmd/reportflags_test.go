package cmd

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDelayFlags runs verify through the root command: an explicit delay
// that is not a finite number > 0 is invalid input (exit 2, SPEC §2/§8),
// 0 included; a flag not given falls back to the trace's params.
func TestDelayFlags(t *testing.T) {
	trace := filepath.Join("..", "testdata", "traces", "forced.json")
	for _, tc := range []struct {
		args []string
		code int
	}{
		{nil, ExitOK},
		{[]string{"--restart-delay", "2"}, ExitOK},
		{[]string{"--control-delay", "0.25"}, ExitOK},
		{[]string{"--restart-delay", "0"}, ExitInvalid},
		{[]string{"--control-delay", "0"}, ExitInvalid},
		{[]string{"--restart-delay=-1"}, ExitInvalid},
		{[]string{"--control-delay", "NaN"}, ExitInvalid},
		{[]string{"--restart-delay", "Inf"}, ExitInvalid},
		{[]string{"--restart-delay", "soon"}, ExitInvalid},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			ios := &IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
			root := NewRootCmd(ios)
			root.SetArgs(append(append([]string{"verify", "-q", "--algo", "pk"}, tc.args...), trace))
			root.SetOut(&errOut)
			root.SetErr(&errOut)
			err := root.Execute()
			code := ExitOK
			if err != nil {
				code = ExitInvalid // cobra's own flag-parse errors are usage errors
				var ee *ExitError
				if errors.As(err, &ee) {
					code = ee.Code
				}
			}
			if code != tc.code {
				t.Errorf("exit %d, want %d (err %v, stderr %q)", code, tc.code, err, errOut.String())
			}
		})
	}
}

// TestDirectorySkipsOtherFormat: a directory argument means every trace
// (verify) or every run (check) in it; documents of the other format
// next to them are skipped, unreadable ones still make the input invalid.
func TestDirectorySkipsOtherFormat(t *testing.T) {
	dir := t.TempDir()
	tr := `{"format":"ckpt/trace@1","processes":["A","B"],"events":[` +
		`{"t":0.1,"p":"A","kind":"send","to":"B","msg":"m"},{"t":0.2,"p":"B","kind":"recv","msg":"m"}]}`
	run := `{"format":"ckpt/run@1","algorithm":"x","processes":["A"],"events":[{"seq":0,"t":0,"p":"A","kind":"end","state":"done"}]}`
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("t.json", tr)
	write("t.run.json", run)
	exec := func(args ...string) (int, string) {
		var out, errOut bytes.Buffer
		root := NewRootCmd(&IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
		root.SetArgs(args)
		root.SetOut(&errOut)
		root.SetErr(&errOut)
		code := ExitOK
		if err := root.Execute(); err != nil {
			code = ExitInvalid
			var ee *ExitError
			if errors.As(err, &ee) {
				code = ee.Code
			}
		}
		return code, out.String()
	}
	if code, out := exec("verify", "-q", dir); code != ExitOK || strings.Contains(out, "t.run.json") || !strings.Contains(out, "t.json") {
		t.Errorf("verify dir: exit %d, out %q", code, out)
	}
	if code, out := exec("check", "-q", dir); code != ExitOK || !strings.Contains(out, "t.run.json") || strings.Contains(out, "t.json\t") {
		t.Errorf("check dir: exit %d, out %q", code, out)
	}
	write("bad.json", `{"format":"ckpt/trace@2"}`)
	if code, _ := exec("verify", "-q", dir); code != ExitInvalid {
		t.Errorf("verify dir with a bad file: exit %d, want %d", code, ExitInvalid)
	}
}
