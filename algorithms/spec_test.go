package algorithms_test

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/ckpt-dev/ckpt/algorithms/ms"
	broken "github.com/ckpt-dev/ckpt/algorithms/mutants"
	"github.com/ckpt-dev/ckpt/algorithms/pk"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/replay/replaytest"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/codec"
)

// TestSpec checks the rules of the SPEC stated as run assertions, one
// case per rule: the engine's (SPEC §3 and §6, in
// replay/testdata/spec, replayed through MS: the engine needs an
// algorithm), MS's (SPEC §4, algorithms/ms/testdata/spec) and PK's
// (SPEC §5 and §3 under PK, algorithms/pk/testdata/spec/*.txt; the
// *.json cases there are pk's TestSpecConformance's). The harness lives
// here, in test code, where all three machines can be imported.
func TestSpec(t *testing.T) {
	for _, c := range []struct {
		name, dir string
		newAlg    func(variant string, tr *trace.Trace) (replay.Algorithm, error)
	}{
		{"engine", "../replay/testdata/spec", func(v string, tr *trace.Trace) (replay.Algorithm, error) { return broken.New("ms", v, tr) }},
		{"ms", "ms/testdata/spec", func(v string, tr *trace.Trace) (replay.Algorithm, error) { return ms.New(v, tr) }},
		{"pk", "pk/testdata/spec", func(v string, tr *trace.Trace) (replay.Algorithm, error) { return pk.New(v, tr) }},
	} {
		t.Run(c.name, func(t *testing.T) { specDir(t, c.dir, c.newAlg) })
	}
}

// specCase is one SPEC-conformance regression case (see specDir): a
// trace and assertions on the JSON Lines run replayed from it. The file is
// a txtar archive: a comment naming the rule, then the files
//
//	trace.json  the trace
//	want        one regexp per line; each must match a run line after the
//	            line the previous one matched (so the order is asserted);
//	            a line starting with "!" must match no run line at all;
//	            blank lines and lines starting with "#" are left out
//	variant     optional variant ("textbook", or a test-only mutant of
//	            algorithms/mutants where newAlg accepts one)
//	error       instead of want: a regexp the replay's error must match
//	            (the trace is valid, the replay must refuse it)
type specCase struct {
	trace   []byte
	want    []string
	variant string
	err     string
}

func parseSpecCase(t *testing.T, path string) specCase {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c specCase
	for _, f := range ar.Files {
		switch f.Name {
		case "trace.json":
			c.trace = f.Data
		case "want":
			for _, l := range strings.Split(string(f.Data), "\n") {
				if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
					c.want = append(c.want, l)
				}
			}
		case "variant":
			c.variant = strings.TrimSpace(string(f.Data))
		case "error":
			c.err = strings.TrimSpace(string(f.Data))
		default:
			t.Fatalf("%s: unknown file %q (trace.json, want, variant, error)", path, f.Name)
		}
	}
	if c.trace == nil || (len(c.want) == 0) == (c.err == "") {
		t.Fatalf("%s: needs a trace.json and either a want or an error file", path)
	}
	return c
}

// checkSpecRun matches the want lines of a case against the run's lines.
func checkSpecRun(t *testing.T, lines []string, want []string) {
	t.Helper()
	at := 0
	for _, w := range want {
		neg := strings.HasPrefix(w, "!")
		re, err := regexp.Compile(strings.TrimPrefix(w, "!"))
		if err != nil {
			t.Fatalf("bad regexp %q: %v", w, err)
		}
		if neg {
			for i, l := range lines {
				if re.MatchString(l) {
					t.Errorf("line %d matches forbidden %q:\n%s", i, w, l)
				}
			}
			continue
		}
		found := false
		for i := at; i < len(lines); i++ {
			if re.MatchString(lines[i]) {
				at, found = i+1, true
				break
			}
		}
		if !found {
			t.Errorf("no line after line %d matches %q", at, w)
		}
	}
	if t.Failed() {
		t.Logf("run:\n%s", strings.Join(lines, "\n"))
	}
}

// specDir replays every case (*.txt) of dir through the algorithm newAlg
// makes and checks the case's assertions and that replay is
// deterministic. The cases are SPEC-conformance regression tests.
func specDir(t *testing.T, dir string, newAlg func(variant string, tr *trace.Trace) (replay.Algorithm, error)) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases in %s (%v)", dir, err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			c := parseSpecCase(t, f)
			tr, err := codec.ReadTrace(filepath.Base(f), bytes.NewReader(c.trace))
			if err != nil {
				t.Fatal(err)
			}
			out, err := replayJSONL(tr, c.variant, newAlg)
			if c.err != "" {
				if err == nil || !regexp.MustCompile(c.err).MatchString(err.Error()) {
					t.Fatalf("replay error %v, want one matching %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// Determinism (SPEC §3): a second replay is byte-identical.
			if out2, err := replayJSONL(tr, c.variant, newAlg); err != nil || !bytes.Equal(out, out2) {
				t.Errorf("two replays of the same trace differ (%v)", err)
			}
			checkSpecRun(t, strings.Split(strings.TrimSpace(string(out)), "\n"), c.want)
		})
	}
}

// replayJSONL replays tr through the algorithm newAlg makes of variant
// and returns the run as JSON Lines (Dump).
func replayJSONL(tr *trace.Trace, variant string, newAlg func(variant string, tr *trace.Trace) (replay.Algorithm, error)) ([]byte, error) {
	alg, err := newAlg(variant, tr)
	if err != nil {
		return nil, err
	}
	run, err := replay.Run(tr, alg, replay.Options{Variant: variant})
	if err != nil {
		return nil, err
	}
	return []byte(replaytest.Dump(run)), nil
}
