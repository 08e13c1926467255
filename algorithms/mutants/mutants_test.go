package mutants

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/tracetest"
)

const module = "github.com/ckpt-dev/ckpt/"

// TestTestOnly: the mutants stay out of production. No non-test file of
// the module imports this package, so neither the CLI nor any other
// production package can build a broken machine; the mutants wrap the
// real machines, which have no hook to break them.
func TestTestOnly(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]map[string]bool{
		module + "algorithms/mutants": {},
	}
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := module + filepath.ToSlash(rel)
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if ok, listed := allowed[p]; listed && !ok[pkg] {
				t.Errorf("%s imports %s, which only tests may use", filepath.ToSlash(path[len(root)+1:]), p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("walked %d files of %s: not the module", files, root)
	}
}

func TestNew(t *testing.T) {
	tr, err := tracetest.NewBuilder("P0", "P1").Internal(0.1, "P0").Build()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range All {
		a, err := New(m.Algo, m.Name, tr)
		if err != nil {
			t.Fatalf("%s/%s: %v", m.Algo, m.Name, err)
		}
		if a.Name() != m.Algo {
			t.Errorf("%s/%s labels its runs %q, want %q", m.Algo, m.Name, a.Name(), m.Algo)
		}
		if m.Doc == "" {
			t.Errorf("%s/%s: no description", m.Algo, m.Name)
		}
	}
	if a, err := New("ms", "textbook", tr); err != nil || a.Name() != "ms-textbook" {
		t.Errorf("real variant: %v, %v", a, err)
	}
	for _, c := range [][2]string{{"pk", "no-forced"}, {"ms", "no-token"}, {"xx", ""}} {
		if _, err := New(c[0], c[1], tr); err == nil || !strings.Contains(err.Error(), "nor a mutant") {
			t.Errorf("New(%q, %q) = %v, want an error", c[0], c[1], err)
		}
	}
}
