package cmd

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
)

const smallTrace = `{"format":"ckpt/trace@1","processes":["P0","P1"],"events":[` +
	`{"t":1,"p":"P0","kind":"send","to":"P1","msg":"m1"},{"t":2,"p":"P1","kind":"recv","msg":"m1"}]}`

// TestReadBOM: a UTF-8 byte order mark is skipped in plain and gzip
// files and on stdin, by every reading function.
func TestReadBOM(t *testing.T) {
	dir := t.TempDir()
	bom := "\ufeff" + smallTrace
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(bom))
	zw.Close()
	files := map[string][]byte{"bom.json": []byte(bom), "bom.json.gz": gz.Bytes(), "plain.json": []byte(smallTrace)}
	for name, b := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		ios := &IO{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}
		if tr, err := readTrace(ios, path); err != nil || len(tr.Events) != 2 {
			t.Errorf("readTrace(%s): %v", name, err)
		}
		if tr, _, err := readAny(ios, path); err != nil || tr == nil {
			t.Errorf("readAny(%s): %v", name, err)
		}
		ios.In = bytes.NewReader(b)
		if tr, _, err := readAny(ios, "-"); err != nil || tr == nil {
			t.Errorf("readAny(stdin %s): %v", name, err)
		}
	}
}

// TestErrorDoc: an error's event index says which numbering it is in.
func TestErrorDoc(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"format":"ckpt/trace@1","processes":["P0"],"events":[{"t":1,"p":"P9","kind":"internal"}]}`), 0o644)
	badRun := filepath.Join(dir, "bad.run.json")
	os.WriteFile(badRun, []byte(`{"format":"ckpt/run@1","algorithm":"ms","processes":["P0"],"events":[{"seq":1,"t":0,"p":"P0","kind":"internal"}]}`), 0o644)
	ios := &IO{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}
	_, _, err := readAny(ios, bad)
	if got := describe(err); got != `trace event 0: unknown process "P9"` {
		t.Errorf("trace error: %q", got)
	}
	if !strings.HasPrefix(err.Error(), bad+": trace event 0: ") {
		t.Errorf("trace error with file: %q", err)
	}
	_, _, err = readAny(ios, badRun)
	if got := describe(err); !strings.HasPrefix(got, "run event 0: ") {
		t.Errorf("run error via readAny: %q", got)
	}
	_, err = readRun(ios, badRun)
	if got := describe(err); !strings.HasPrefix(got, "run event 0: ") {
		t.Errorf("run error via readRun: %q", got)
	}
	// Without Doc an InputError keeps the decoders' bare form.
	ie := &trace.InputError{File: "x", Event: 3, Msg: "m"}
	if ie.Error() != "x: event 3: m" {
		t.Errorf("bare InputError %q", ie)
	}
	if got := describe(errors.New("plain")); got != "plain" {
		t.Errorf("describe(plain) = %q", got)
	}
	if _, err := readTrace(ios, filepath.Join(dir, "missing.json")); describe(err) != "no such file or directory" {
		t.Errorf("missing file: %q", describe(err))
	}
}

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

func TestSourceFor(t *testing.T) {
	tests := []struct{ file, out, want string }{
		{"t.json", "", "t.json"},
		{"t.json", "-", "t.json"},
		{"-", "runs/r.json", "-"},
		{"t.json", "runs/r.json", "../t.json"},
		{"traces/t.json", "runs/r.json", "../traces/t.json"},
		{"traces/t.json", "traces/r.json", "t.json"},
		{"t.json", "r.json", "t.json"},
		{"/data/t.json", "/data/runs/r.json", "../t.json"},
	}
	for _, tc := range tests {
		if got := sourceFor(tc.file, tc.out); got != tc.want {
			t.Errorf("sourceFor(%q, %q) = %q, want %q", tc.file, tc.out, got, tc.want)
		}
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
