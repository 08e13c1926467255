package cmd

import (
	"bytes"
	"os"
	"runtime"
	"strings"
	"testing"
)

const smallTrace = `{"format":"ckpt/trace@1","processes":["P0","P1"],"events":[` +
	`{"t":1,"p":"P0","kind":"send","to":"P1","msg":"m1"},{"t":2,"p":"P1","kind":"recv","msg":"m1"}]}`

// TestStdinHint: reading a terminal says so on stderr; a pipe does not.
func TestStdinHint(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no character device to stand in for a terminal")
	}
	// /dev/null is a character device, as a terminal is, and reads empty.
	tty, err := os.Open(os.DevNull)
	if err != nil {
		t.Skip(err)
	}
	defer tty.Close()
	if st, err := tty.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Skipf("%s is not a character device here", os.DevNull)
	}
	var out, errOut bytes.Buffer
	code := Main([]string{"verify", "-"}, tty, &out, &errOut)
	if code != ExitInvalid || !strings.HasPrefix(errOut.String(), stdinHint+"\n") {
		t.Errorf("exit %d, stderr %q: want the hint first", code, errOut.String())
	}
	errOut.Reset()
	Main([]string{"verify", "-"}, strings.NewReader(smallTrace), &out, &errOut)
	if strings.Contains(errOut.String(), "standard input") {
		t.Errorf("hint on a pipe: %q", errOut.String())
	}
}

func TestTraceWriteOptions(t *testing.T) {
	tests := []struct {
		out         string
		jsonl, gz   bool
		wantJ, want bool
		err         bool
	}{
		{"", false, false, false, false, false},
		{"", true, true, true, true, false},
		{"t.json", false, false, false, false, false},
		{"t.jsonl", false, false, true, false, false},
		{"t.jsonl.gz", false, false, true, true, false},
		{"t.json.gz", true, false, true, true, true}, // --jsonl and a .json name
		{"t.bin", true, true, true, true, false},
		{"t.json", false, true, false, true, true},
		{"t.jsonl", false, true, true, true, true},
		{"t.json", true, false, true, false, true},
	}
	for _, tc := range tests {
		w, err := traceWriteOptions(tc.out, tc.jsonl, tc.gz)
		if (err != nil) != tc.err {
			t.Errorf("%q jsonl=%v gz=%v: err %v, want error %v", tc.out, tc.jsonl, tc.gz, err, tc.err)
			continue
		}
		if err == nil && (w.JSONL != tc.wantJ || w.Gzip != tc.want) {
			t.Errorf("%q jsonl=%v gz=%v: %+v", tc.out, tc.jsonl, tc.gz, w)
		}
	}
}
