package pipeline

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ckpt-dev/ckpt/trace/codec"
)

// TestSourceNotRegular: a run whose header names a named pipe as its
// source is checked without it (equivalence unknown, with a note), not
// left waiting for a writer that never comes.
func TestSourceNotRegular(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Skip(err)
	}
	p := &Pipeline{}
	tr, err := codec.ReadTrace("small", strings.NewReader(smallTrace))
	if err != nil {
		t.Fatal(err)
	}
	path := writeRun(t, dir, tr, "fifo")
	done := make(chan string, 1)
	go func() { // opening the pipe would wait for a writer for ever
		_, note, err := p.CheckFile(path)
		done <- fmt.Sprintf("note %q, error %v", note, err)
	}()
	select {
	case got := <-done:
		if !strings.Contains(got, "not a regular file") || !strings.HasSuffix(got, "error <nil>") {
			t.Errorf("source naming a pipe: %s", got)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("check waits on the pipe its run names as source")
	}
}
