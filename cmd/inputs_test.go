package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An output that would replace one of the command's inputs is refused
// (exit 2, the input untouched): the trace given to replay or verify, the
// run given to check, and the source trace check reads because the run
// names it.
func TestOutputIsNoInput(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "testdata", "traces", "orphan.json"))
	if err != nil {
		t.Fatal(err)
	}
	tr, run := filepath.Join(dir, "t.json"), filepath.Join(dir, "run.json")
	if err := os.WriteFile(tr, src, 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"replay", "--algo", "pk", tr, "-o", run}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("replay: exit %d: %s", code, stderr.String())
	}
	runBytes, _ := os.ReadFile(run)
	for _, args := range [][]string{
		{"replay", "--algo", "pk", tr, "-o", tr},
		{"verify", tr, "-o", filepath.Join(dir, ".", "t.json")},
		{"check", run, "-o", run},
		{"check", run, "-o", tr},
		{"report", run, "-o", tr},
	} {
		stdout.Reset()
		stderr.Reset()
		code := Main(args, nil, &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), "it is an input of this command") {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 naming the input", strings.Join(args, " "), code, stderr.String())
		}
		if b, _ := os.ReadFile(tr); !bytes.Equal(b, src) {
			t.Fatalf("%s: the trace was replaced", strings.Join(args, " "))
		}
		if b, _ := os.ReadFile(run); !bytes.Equal(b, runBytes) {
			t.Fatalf("%s: the run was replaced", strings.Join(args, " "))
		}
	}
	// Another name is written as usual.
	if code := Main([]string{"check", run, "-o", filepath.Join(dir, "r.txt")}, nil, &stdout, &stderr); code != 0 {
		t.Errorf("check -o r.txt: exit %d: %s", code, stderr.String())
	}
}
