package trace_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/ckpt-dev/ckpt/internal/golden"
)

// TestExamples reads every bundled example, checks that its variants
// (.jsonl, .json.gz) hold the same trace, and pins the canonical
// encoding in golden files.
func TestExamples(t *testing.T) {
	dir := filepath.Join("..", "testdata", "traces")
	if golden.Update() {
		// The variants are generated from their JSON originals.
		for _, v := range []struct {
			from, to string
			opts     codec.WriteOptions
		}{
			{"forced.json", "forced.jsonl", codec.WriteOptions{JSONL: true}},
			{"orphan.json", "orphan.json.gz", codec.WriteOptions{Gzip: true}},
		} {
			tr, err := codec.ReadTraceFile(filepath.Join(dir, v.from))
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := codec.WriteTrace(&b, tr, v.opts); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, v.to), b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, name := range []string{"forced", "orphan", "domino", "failure-free"} {
		t.Run(name, func(t *testing.T) {
			tr, err := codec.ReadTraceFile(filepath.Join(dir, name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := codec.WriteTrace(&b, tr, codec.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("canonical", name+".json"), b.Bytes())
			for _, variant := range []string{name + ".jsonl", name + ".json.gz"} {
				vt, err := codec.ReadTraceFile(filepath.Join(dir, variant))
				if os.IsNotExist(err) {
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				vt.Name = tr.Name
				var vb bytes.Buffer
				if err := codec.WriteTrace(&vb, vt, codec.WriteOptions{}); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(vb.Bytes(), b.Bytes()) {
					t.Errorf("%s differs from %s.json", variant, name)
				}
			}
		})
	}
}

// TestBadExamples pins the message for every file in testdata/bad.
func TestBadExamples(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "testdata", "bad", "*"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no bad examples: %v", err)
	}
	var out strings.Builder
	for _, p := range paths {
		_, err := codec.ReadTraceFile(p)
		if err == nil {
			t.Errorf("%s: accepted", p)
			continue
		}
		out.WriteString(filepath.ToSlash(err.Error()) + "\n")
	}
	golden.Check(t, "bad.golden", []byte(out.String()))
}
