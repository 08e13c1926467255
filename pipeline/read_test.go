package pipeline

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/codec"
)

const smallTrace = `{"format":"ckpt/trace@1","processes":["P0","P1"],"events":[` +
	`{"t":1,"p":"P0","kind":"send","to":"P1","msg":"m1"},{"t":2,"p":"P1","kind":"recv","msg":"m1"}]}`

// TestReadBOM: a UTF-8 byte order mark is skipped in plain and gzip
// files and on stdin, by every reading function.
func TestReadBOM(t *testing.T) {
	dir := t.TempDir()
	bom := "\ufeff" + smallTrace
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(bom))
	zw.Close()
	files := map[string][]byte{"bom.json": []byte(bom), "bom.json.gz": gz.Bytes(), "plain.json": []byte(smallTrace)}
	for name, b := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		p := &Pipeline{}
		if tr, err := p.ReadTrace(path); err != nil || len(tr.Events) != 2 {
			t.Errorf("ReadTrace(%s): %v", name, err)
		}
		if tr, _, err := p.ReadAny(path); err != nil || tr == nil {
			t.Errorf("ReadAny(%s): %v", name, err)
		}
		p.Stdin = bytes.NewReader(b)
		if tr, _, err := p.ReadAny("-"); err != nil || tr == nil {
			t.Errorf("ReadAny(stdin %s): %v", name, err)
		}
	}
}

// TestSourceBOM: the source trace a run names is read past a byte order
// mark, as the trace itself is, so that equivalence is judged.
func TestSourceBOM(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "bom.json")
	if err := os.WriteFile(src, []byte("\ufeff"+smallTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &Pipeline{}
	tr, err := p.ReadTrace(src)
	if err != nil {
		t.Fatal(err)
	}
	if _, note, err := p.CheckFile(writeRun(t, dir, tr, "bom.json")); err != nil || note != "" {
		t.Errorf("source with a mark: note %q, error %v", note, err)
	}
}

// writeRun writes dir/run.json, tr's MS run, naming source as its
// source trace, and returns its path.
func writeRun(t *testing.T, dir string, tr *trace.Trace, source string) string {
	t.Helper()
	var run bytes.Buffer
	if err := (&Pipeline{}).WriteRun(&run, tr, "ms", "", trace.Params{}, source, codec.WriteOptions{}, false); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "run.json")
	if err := os.WriteFile(path, run.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestErrorDoc: an error's event index says which numbering it is in.
func TestErrorDoc(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"format":"ckpt/trace@1","processes":["P0"],"events":[{"t":1,"p":"P9","kind":"internal"}]}`), 0o644)
	badRun := filepath.Join(dir, "bad.run.json")
	os.WriteFile(badRun, []byte(`{"format":"ckpt/run@1","algorithm":"ms","processes":["P0"],"events":[{"seq":1,"t":0,"p":"P0","kind":"internal"}]}`), 0o644)
	p := &Pipeline{}
	_, _, err := p.ReadAny(bad)
	if got := Describe(err); got != `trace event 0: unknown process "P9"` {
		t.Errorf("trace error: %q", got)
	}
	if !strings.HasPrefix(err.Error(), bad+": trace event 0: ") {
		t.Errorf("trace error with file: %q", err)
	}
	_, _, err = p.ReadAny(badRun)
	if got := Describe(err); !strings.HasPrefix(got, "run event 0: ") {
		t.Errorf("run error via readAny: %q", got)
	}
	_, err = p.ReadRun(badRun)
	if got := Describe(err); !strings.HasPrefix(got, "run event 0: ") {
		t.Errorf("run error via ReadRun: %q", got)
	}
	// Without Doc an InputError keeps the decoders' bare form.
	ie := &trace.InputError{File: "x", Event: 3, Msg: "m"}
	if ie.Error() != "x: event 3: m" {
		t.Errorf("bare InputError %q", ie)
	}
	if got := Describe(errors.New("plain")); got != "plain" {
		t.Errorf("Describe(plain) = %q", got)
	}
	if _, err := p.ReadTrace(filepath.Join(dir, "missing.json")); Describe(err) != "no such file or directory" {
		t.Errorf("missing file: %q", Describe(err))
	}
}
