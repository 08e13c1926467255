package cmd

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ckpt-dev/ckpt/internal/golden"
)

// TestMain lets testscript run ckpt in-process: `exec ckpt ...` in a
// script calls Main, with the real exit status.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"ckpt": func() {
			CleanupOnSignal() // as main does
			os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

// TestScripts runs every testdata/script/*.txtar end to end. Scripts see
// $REPO, the repository root, to reach the bundled examples.
func TestScripts(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("REPO", root)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"exits": exits, "globs": globs, "gzip": gzipFile},
		// -update rewrites the files a script compares with cmp, as it
		// rewrites every other golden file.
		UpdateScripts: golden.Update(),
	})
}

// exits is the script command "exits CODE PROGRAM [ARGS...]": it runs
// the program like exec and fails unless it exits with status CODE, so
// that scripts can tell SPEC §8's 1 (a property fails) from 2 (invalid
// input), which "! exec" cannot.
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad code %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}

// globs is the script command "globs N PATTERN": it waits up to ten
// seconds until PATTERN (relative to $WORK) matches N files, so that a
// script can act once a background command has written something (an
// interrupted output's temporary file) and check what is left.
func globs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: globs N PATTERN")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("globs: bad count %q", args[0])
	}
	var got []string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if got, _ = filepath.Glob(ts.MkAbs(args[1])); len(got) == want {
			return
		}
	}
	ts.Fatalf("%s matches %d files, want %d: %v", args[1], len(got), want, got)
}

// gzipFile is the script command "gzip FILE": it writes FILE.gz, FILE
// compressed, so that a script can give any input to ckpt gzipped.
func gzipFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: gzip FILE")
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, err := zw.Write([]byte(ts.ReadFile(args[0])))
	ts.Check(err)
	ts.Check(zw.Close())
	ts.Check(os.WriteFile(ts.MkAbs(args[0]+".gz"), b.Bytes(), 0o644))
}
