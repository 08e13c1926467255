//go:build linux

package cmd

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/ckpt-dev/ckpt/trace/gen"
)

// TestExploreStopsCleanly: SIGINT and SIGTERM stop an exploration with
// the report of the schedules run so far, in the format asked for, and
// exit status 130 and 143.
func TestExploreStopsCleanly(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Skipf("cannot find the test binary: %v", err)
	}
	cfg := gen.DefaultConfig()
	cfg.Procs, cfg.Events, cfg.Seed = 4, 120, 5
	tr, err := gen.Trace(cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "long.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := codec.WriteTrace(f, tr, codec.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, c := range []struct {
		sig    syscall.Signal
		code   int
		format string
		want   string
	}{
		{syscall.SIGINT, 130, "text", `STOPPED: explored \d+ of 100000 schedules, none failed so far`},
		{syscall.SIGTERM, 143, "json", `"stopped": true`},
	} {
		cmd := exec.Command(self, "explore", "--failures", "3", "--format", c.format, path)
		cmd.Args[0] = "ckpt"
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitForCPU(t, cmd.Process.Pid)
		if err := cmd.Process.Signal(c.sig); err != nil {
			t.Fatal(err)
		}
		werr := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(werr, &ee) || ee.ExitCode() != c.code {
			t.Errorf("%s: exit %v, want status %d; stderr: %s", c.sig, werr, c.code, stderr.String())
		}
		if !regexp.MustCompile(c.want).Match(stdout.Bytes()) {
			t.Errorf("%s: stdout does not match %s:\n%s", c.sig, c.want, stdout.String())
		}
		if want := "ckpt: " + c.sig.String() + ": stopped; the report covers the work done\n"; stderr.String() != want {
			t.Errorf("%s: stderr %q, want %q", c.sig, stderr.String(), want)
		}
	}
}

// waitForCPU waits until process pid has run a quarter of a second on
// the CPU (utime, /proc/PID/stat): it is exploring, past reading its
// trace, with its signal handler set.
func waitForCPU(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			t.Skipf("no /proc: %v", err)
		}
		// Fields after the command name (which may hold spaces): utime
		// is the 14th field, the 12th after the ")".
		fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if ticks, _ := strconv.Atoi(fields[11]); ticks >= 25 {
			return
		}
	}
	t.Fatal("the exploration did not start within 20 s")
}
