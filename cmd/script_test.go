package cmd

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets testscript run ckpt in-process: `exec ckpt ...` in a
// script calls Main, with the real exit status.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"ckpt": func() { os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
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
	})
}
