package cmd

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// -o naming a device or a named pipe writes into it: renaming a file over
// it would replace it (as root, -o /dev/null replaced the system's null
// device with a file). A symbolic link is kept, and the file it names is
// written.
func TestOutputSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	gen := []string{"gen", "--procs", "2", "--events", "10", "--seed", "1", "-o"}

	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- nil
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- b
	}()
	var stdout, stderr bytes.Buffer
	if code := Main(append(gen, fifo), nil, &stdout, &stderr); code != 0 {
		t.Fatalf("-o FIFO: exit %d: %s", code, stderr.String())
	}
	select {
	case b := <-got:
		if !strings.Contains(string(b), `"format":"ckpt/trace@1"`) {
			t.Errorf("the reader of the pipe got %q", b)
		}
	case <-time.After(10 * time.Second):
		t.Error("nothing was written into the pipe")
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("-o FIFO: it is no longer a pipe (%v, %v)", st.Mode(), err)
	}

	// A null device of our own (needs root; skipped otherwise).
	null := filepath.Join(dir, "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err == nil {
		if code := Main(append(gen, null), nil, &stdout, &stderr); code != 0 {
			t.Fatalf("-o device: exit %d: %s", code, stderr.String())
		}
		if st, err := os.Lstat(null); err != nil || st.Mode()&os.ModeCharDevice == 0 {
			t.Errorf("-o device: it is no longer a device (%v, %v)", st.Mode(), err)
		}
	}

	real, link := filepath.Join(dir, "real.json"), filepath.Join(dir, "link.json")
	if err := os.WriteFile(real, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.json", link); err != nil {
		t.Fatal(err)
	}
	if code := Main(append(gen, link), nil, &stdout, &stderr); code != 0 {
		t.Fatalf("-o link: exit %d: %s", code, stderr.String())
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("-o link: the link was replaced (%v, %v)", st.Mode(), err)
	}
	if b, _ := os.ReadFile(real); !strings.Contains(string(b), "ckpt/trace@1") {
		t.Errorf("-o link: the file it names holds %q", b)
	}
}

// A link that names nothing (dangling, or a loop) is refused, not
// replaced by a file.
func TestOutputLinks(t *testing.T) {
	dir := t.TempDir()
	gen := []string{"gen", "--procs", "2", "--events", "10", "--seed", "1", "-o"}
	dangling, loop := filepath.Join(dir, "dangling.json"), filepath.Join(dir, "loop.json")
	if err := os.Symlink(filepath.Join(dir, "missing", "x.json"), dangling); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("loop.json", loop); err != nil {
		t.Fatal(err)
	}
	for _, link := range []string{dangling, loop} {
		var stdout, stderr bytes.Buffer
		code := Main(append(gen, link), nil, &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), "symbolic link that names no file") {
			t.Errorf("-o %s: exit %d, stderr %q", filepath.Base(link), code, stderr.String())
		}
		if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("-o %s: the link was replaced", filepath.Base(link))
		}
	}
}

// -o naming a descriptor (/proc/self/fd/N, which /dev/stdout links to)
// appends to the file it is open on: "ckpt … -o /dev/stdout >> log" keeps
// log's earlier lines (a descriptor reopened through /proc starts at 0,
// and a rename would have cut the file loose from the redirection). A
// new file under /dev that names no descriptor (/dev/shm/run.json) is
// created like any other, atomically.
func TestOutputDescriptors(t *testing.T) {
	gen := []string{"gen", "--procs", "2", "--events", "10", "--seed", "1", "-o"}
	log := filepath.Join(t.TempDir(), "log")
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("earlier line\n"); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	fd := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	if code := Main(append(gen, fd), nil, &stdout, &stderr); code != 0 {
		t.Fatalf("-o %s: exit %d: %s", fd, code, stderr.String())
	}
	if b, _ := os.ReadFile(log); !strings.HasPrefix(string(b), "earlier line\n{") || !strings.Contains(string(b), "ckpt/trace@1") {
		t.Errorf("-o %s: the file holds %.60q…, want its earlier line and then the trace", fd, b)
	}

	if st, err := os.Stat("/dev/shm"); err != nil || !st.IsDir() {
		t.Skip("no /dev/shm")
	}
	shm := filepath.Join("/dev/shm", "ckpt-test-"+strconv.Itoa(os.Getpid())+".json")
	defer os.Remove(shm)
	if code := Main(append(gen, shm), nil, &stdout, &stderr); code != 0 {
		t.Fatalf("-o %s: exit %d: %s", shm, code, stderr.String())
	}
	if b, _ := os.ReadFile(shm); !strings.Contains(string(b), "ckpt/trace@1") {
		t.Errorf("-o %s holds %q", shm, b)
	}
}
