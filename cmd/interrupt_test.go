//go:build unix

package cmd

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestInterruptExitCodes: SIGINT and SIGTERM stop a command writing an
// output file with exit status 130 and 143, say so on stderr and leave
// neither the output nor its hidden temporary file behind
// (output/interrupt.go). interrupt.txtar covers SIGINT only, the one signal
// testscript's kill sends, so SIGTERM's status had no test.
//
// The child is this test binary run as "ckpt": testscript.Main (see
// TestMain) dispatches on the base name of argv[0], so setting Args[0]
// runs Main with CleanupOnSignal installed, as the real binary does.
func TestInterruptExitCodes(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Skipf("cannot find the test binary: %v", err)
	}
	for _, c := range []struct {
		sig  syscall.Signal
		code int
		name string // as os.Signal prints it
	}{
		{syscall.SIGINT, 130, "interrupt"},
		{syscall.SIGTERM, 143, "terminated"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			// A 10 ns tick over the trace's span writes gigabytes: the
			// command is still writing when the signal comes.
			cmd := exec.Command(self, "gen", "--procs", "3", "--events", "100", "--tick", "1e-8",
				"--max-events", "1000000000", "-o", filepath.Join(dir, "tiny.json"))
			cmd.Args[0] = "ckpt"
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			waitForTemp(t, dir, done)
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			var werr error
			select {
			case werr = <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("still running 10 s after %s", c.name)
			}
			var ee *exec.ExitError
			if !errors.As(werr, &ee) || ee.ExitCode() != c.code {
				t.Errorf("exit: %v, want status %d", werr, c.code)
			}
			if want := "ckpt: " + c.name + ": stopped; unfinished output files removed\n"; stderr.String() != want {
				t.Errorf("stderr %q, want %q", stderr.String(), want)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("%d files left behind, want none: %v", len(left), left)
			}
		})
	}
}

// waitForTemp waits until the command has written to its temporary
// output file in dir — by then the file is registered for removal,
// which its creation alone does not promise — failing if the command
// exits first or takes more than ten seconds.
func waitForTemp(t *testing.T, dir string, done <-chan error) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if tmp, _ := filepath.Glob(filepath.Join(dir, ".tiny.json.tmp*")); len(tmp) == 1 {
			if fi, err := os.Stat(tmp[0]); err == nil && fi.Size() > 0 {
				return
			}
		}
		select {
		case err := <-done:
			t.Fatalf("exited before writing: %v", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	t.Fatal("no temporary output file after 10 s")
}

// A command stopped with nothing written to a file says only that it
// stopped: no "files removed" when there were none.
func TestInterruptWithNoOutputFile(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Skipf("cannot find the test binary: %v", err)
	}
	cmd := exec.Command(self, "gen", "--procs", "3", "--events", "100", "--tick", "1e-8", "--max-events", "1000000000")
	cmd.Args[0] = "ckpt"
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Its first bytes on stdout: it is running, with its handler set.
	if _, err := out.Read(make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, out) // to EOF: the pipe closes when it exits
	werr := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(werr, &ee) || ee.ExitCode() != 143 {
		t.Errorf("exit: %v, want status 143", werr)
	}
	if want := "ckpt: terminated: stopped\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
}
