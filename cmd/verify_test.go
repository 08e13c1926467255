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
		err := runVerify(ios, &reportFlags{replayFlags: replayFlags{Algo: "ms", choices: algoNames(true)}, Format: "text"}, args)
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
