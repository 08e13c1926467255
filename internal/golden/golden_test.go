package golden

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a TB that notes what Check reports instead of failing.
type recorder struct{ errors, fatals []string }

func (r *recorder) Helper()           {}
func (r *recorder) Fatal(args ...any) { r.fatals = append(r.fatals, fmt.Sprint(args...)) }
func (r *recorder) Fatalf(f string, args ...any) {
	r.fatals = append(r.fatals, fmt.Sprintf(f, args...))
}
func (r *recorder) Errorf(f string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(f, args...))
}
func (r *recorder) failed() bool { return len(r.errors)+len(r.fatals) > 0 }
func (r *recorder) said() string { return strings.Join(append(r.errors, r.fatals...), "\n") }

// TestCheck: equal bytes pass; a changed line, a missing file, a longer
// or shorter output fail, naming the file and the first differing line;
// -update writes the file (creating its directory) and then passes.
func TestCheck(t *testing.T) {
	defer func(was bool) { *update = was }(*update)
	*update = false
	t.Chdir(t.TempDir())
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", "x.golden"), []byte("a\nb\nc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, got, want string // want: "" passes, else a part of the report
	}{
		{"x.golden", "a\nb\nc\n", ""},
		{"x.golden", "a\nB\nc\n", `line 2 (3 lines, golden 3):
  got  "B"
  want "b"`},
		{"x.golden", "a\nb\nc\nd\n", `line 4 (4 lines, golden 3):
  got  "d"
  want (end of file)`},
		{"x.golden", "a\nb\n", `line 3 (2 lines, golden 3):
  got  (end of file)
  want "c"`},
		{"x.golden", "a\nb\nc", "only the final newline differs"},
		{"x.golden", "", "line 1 (0 lines, golden 3)"},
		{"missing.golden", "a\n", "missing.golden: no such file"},
	} {
		r := &recorder{}
		Check(r, c.name, []byte(c.got))
		if c.want == "" && r.failed() {
			t.Errorf("%q against %s: %s", c.got, c.name, r.said())
		}
		if c.want != "" && !strings.Contains(r.said(), c.want) {
			t.Errorf("%q against %s: reported %q, want it to contain %q", c.got, c.name, r.said(), c.want)
		}
	}
	long := strings.Repeat("x", 300)
	if err := os.WriteFile(filepath.Join("testdata", "long.golden"), []byte(long+"z"+long), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &recorder{}
	Check(r, "long.golden", []byte(long+"y"+long))
	if s := r.said(); !strings.Contains(s, `…"`+strings.Repeat("x", 40)+`y`) || !strings.Contains(s, `…"`+strings.Repeat("x", 40)+`z`) || strings.Contains(strings.Split(s, "--- got")[0], long) {
		t.Errorf("a long line is not quoted around its difference:\n%s", s)
	}

	*update = true
	r = &recorder{}
	Check(r, filepath.Join("new", "y.golden"), []byte("fresh\n"))
	if b, err := os.ReadFile(filepath.Join("testdata", "new", "y.golden")); r.failed() || err != nil || string(b) != "fresh\n" {
		t.Fatalf("-update wrote %q (%v; %s)", b, err, r.said())
	}
	*update = false
	if Check(r, filepath.Join("new", "y.golden"), []byte("fresh\n")); r.failed() {
		t.Errorf("the rewritten file does not pass: %s", r.said())
	}
}

// TestEveryTestBinaryHasTheFlag: `go test ./... -update` passes -update
// to every test binary of the module, and one that does not define it
// fails at once. So every package with tests must link this package in,
// directly or through a helper that does.
func TestEveryTestBinaryHasTheFlag(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list over the module")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	// One line per test binary: "p.test DEPS…" (a package without tests
	// has none).
	cmd := exec.Command(goCmd, "list", "-test", "-f", `{{if eq .Name "main"}}{{.ImportPath}} {{join .Deps " "}}{{end}}`, "./...")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const self = "github.com/ckpt-dev/ckpt/internal/golden"
	n := 0
	for _, l := range strings.Split(string(out), "\n") {
		bin, deps, _ := strings.Cut(l, " ")
		if !strings.HasSuffix(bin, ".test") {
			continue
		}
		n++
		if bin != self+".test" && !strings.Contains(" "+deps+" ", " "+self+" ") {
			t.Errorf("%s does not link %s, so `go test ./... -update` fails there (import it blankly in a _test.go file)", bin, self)
		}
	}
	if n == 0 {
		t.Fatal("go list found no test packages")
	}
}
