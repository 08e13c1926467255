package cmd

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyProgressNotOnPipe verifies several files with stderr a pipe
// and a buffer: the progress line must not appear in either, and the
// reports must come out in argument order whatever the workers' order.
func TestVerifyProgressNotOnPipe(t *testing.T) {
	dir := filepath.Join("..", "testdata", "traces")
	files := []string{"orphan.json", "forced.json", "failure-free.json", "domino.json", "forced.jsonl"}
	var args []string
	for _, f := range files {
		args = append(args, filepath.Join(dir, f))
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	piped := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r)
		piped <- b
	}()
	for _, errOut := range []io.Writer{w, &bytes.Buffer{}} {
		var out bytes.Buffer
		ios := &IO{In: strings.NewReader(""), Out: &out, ErrOut: errOut}
		err := runVerify(ios, &reportFlags{Algo: "ms", Format: "text"}, args)
		if err != nil {
			if _, ok := err.(*ExitError); !ok {
				t.Fatalf("verify: %v", err)
			}
		}
		if b, ok := errOut.(*bytes.Buffer); ok && b.Len() != 0 {
			t.Errorf("stderr in a buffer got %q", b.String())
		}
		last := -1
		for _, f := range files {
			i := strings.Index(out.String(), f)
			if i < 0 || i < last {
				t.Fatalf("report of %s missing or out of argument order:\n%s", f, out.String())
			}
			last = i
		}
	}
	w.Close()
	if b := <-piped; len(b) != 0 {
		t.Errorf("stderr on a pipe got %q", b)
	}
}

// TestProgressLine draws the line as a terminal would see it: redrawn
// when the bar moves and at the end, blanked by finish; nothing on a
// buffer, and a nil line is safe to use.
func TestProgressLine(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b, label: "verify", unit: "files", filled: -1}
	p.update(0, 4)
	p.step(4)
	p.step(4)
	p.finish()
	got := strings.Split(b.String(), "\r")
	want := []string{"", "verify [                              ] 0/4 files",
		"verify [=======                       ] 1/4 files",
		"verify [===============               ] 2/4 files",
		strings.Repeat(" ", len(got[3])), ""}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("progress output\n%q\nwant\n%q", got, want)
	}
	b.Reset()
	q := &progress{w: &b, label: "explore", unit: "schedules", filled: -1}
	for _, done := range []int64{1, 2, 100} {
		q.update(done, 100)
	}
	if got := strings.Count(b.String(), "explore ["); got != 2 {
		t.Errorf("drew the bar %d times, want 2: %q", got, b.String())
	}
	if newProgress(&b, "verify", "files") != nil {
		t.Error("a progress line on a buffer")
	}
	var nilp *progress
	nilp.step(1)
	nilp.update(1, 2)
	nilp.finish()
}
