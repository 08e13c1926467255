package pipeline

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
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

// TestPipeInputs: a named pipe (`ckpt verify <(zcat t.json.gz)`) is read
// once, front to back: a trace, plain or gzip, and a run, checked whole.
func TestPipeInputs(t *testing.T) {
	dir := t.TempDir()
	p := &Pipeline{}
	tr, err := codec.ReadTrace("small", strings.NewReader(smallTrace))
	if err != nil {
		t.Fatal(err)
	}
	run, err := os.ReadFile(writeRun(t, dir, tr, ""))
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(smallTrace))
	zw.Close()
	for i, tc := range []struct {
		name, data string
		read       func(path string) error
	}{
		{"trace", smallTrace, func(path string) error { _, err := p.ReadTrace(path); return err }},
		{"gzip trace", gz.String(), func(path string) error { _, _, err := p.ReadAny(path); return err }},
		{"run", string(run), func(path string) error {
			if p.IsRun(path) {
				return fmt.Errorf("IsRun opened the pipe")
			}
			_, _, err := p.CheckFile(path)
			return err
		}},
	} {
		fifo := filepath.Join(dir, fmt.Sprint("fifo", i))
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Skip(err)
		}
		go func() {
			if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				f.WriteString(tc.data)
				f.Close()
			}
		}()
		done := make(chan error, 1)
		go func() { done <- tc.read(fifo) }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s through a pipe: %v", tc.name, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s through a pipe: still reading", tc.name)
		}
	}
}
