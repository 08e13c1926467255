package pipeline

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

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
	if _, note, err := p.CheckFile(writeRun(t, dir, tr, "fifo")); err != nil || !strings.Contains(note, "not a regular file") {
		t.Errorf("source naming a pipe: note %q, error %v", note, err)
	}
}
