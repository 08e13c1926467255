// Package golden holds the project's one golden-file check and the one
// -update flag that rewrites golden files, for tests only.
//
// A test binary can register a flag only once, so every test package
// reads -update from here: `go test ./... -update` rewrites the golden
// files of every package, and a test-helper package (protocoltest, say)
// can use goldens and still be linked into any test. Every package with
// tests imports golden, if only blankly, or `go test ./... -update` would
// stop at its "flag provided but not defined" (golden_test.go checks).
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

var update = flag.Bool("update", false, "rewrite the golden files (testdata/…) instead of comparing with them")

// Update reports whether the test run was asked to rewrite its golden
// files: tests whose expected files are not plain outputs (searched
// regression traces, script archives) regenerate them when it is set.
func Update() bool { return *update }

// Check compares got with the golden file testdata/name (name may name
// subdirectories, or leave testdata with ".."), or rewrites the file
// under -update, creating its directory.
func Check(t TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it, after checking the change):\n%s", path, diff(got, want))
	}
}

// TB is what Check needs of a test: *testing.T, *testing.B and *rapid.T
// all have it.
type TB interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Errorf(format string, args ...any)
}

// maxShown bounds the output a failure quotes in full.
const maxShown = 4 << 10

// diff says where got first departs from want, line by line, and quotes
// got whole when it is short enough to read.
func diff(got, want []byte) string {
	g, w := lines(got), lines(want)
	i := 0
	for i < len(g) && i < len(w) && g[i] == w[i] {
		i++
	}
	var s string
	switch {
	case i == len(g) && i == len(w):
		s = "the same lines; only the final newline differs"
	default:
		gl, wl := "(end of file)", "(end of file)"
		if i < len(g) && i < len(w) {
			gl, wl = around(g[i], w[i])
		} else if i < len(g) {
			gl, _ = around(g[i], "")
		} else {
			_, wl = around("", w[i])
		}
		s = fmt.Sprintf("first difference at line %d (%d lines, golden %d):\n  got  %s\n  want %s", i+1, len(g), len(w), gl, wl)
	}
	if len(got) <= maxShown {
		s += "\n--- got\n" + string(got)
	}
	return s
}

// lines splits b into its lines, without their newlines.
func lines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// around quotes two differing lines from a little before their first
// differing byte, so that a long line (an SVG, a JSON document) shows
// where it differs.
func around(a, b string) (string, string) {
	k := 0
	for k < len(a) && k < len(b) && a[k] == b[k] {
		k++
	}
	from := max(0, k-40)
	cut := func(s string) string {
		to := min(len(s), from+120)
		q := strconv.Quote(s[min(from, len(s)):to])
		if from > 0 {
			q = "…" + q
		}
		if to < len(s) {
			q += "…"
		}
		return q
	}
	return cut(a), cut(b)
}
