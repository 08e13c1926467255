package pipeline

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSourceUnderCap (redteam6): the source trace a run names is read
// under the memory cap as any input is: a small gzip that inflates past
// the cap is not read (equivalence unknown, saying why), where it used to
// be decoded whole, and a 4 GiB one killed check.
func TestSourceUnderCap(t *testing.T) {
	dir := t.TempDir()
	tr := `{"format": "ckpt/trace@1", "processes": ["P0", "P1"], "events": [
  {"t": 1, "p": "P0", "kind": "send", "to": "P1", "msg": "m1"},
  {"t": 2, "p": "P1", "kind": "recv", "msg": "m1"}]}` + strings.Repeat(" ", 20<<20)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte(tr))
	w.Close()
	if err := os.WriteFile(filepath.Join(dir, "t.json.gz"), gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	run := `{"format":"ckpt/run@1","algorithm":"ms","processes":["P0","P1"],"options":{"restart_delay":1,"control_delay":0.5,"default_delay":1},"source":"t.json.gz","events":[
{"seq":0,"t":1,"p":"P0","kind":"send","msg":"m1","to":"P1","op":0,"copy":1,"pb":{"sn":0,"f":{}}},
{"seq":1,"t":2,"p":"P1","kind":"recv","msg":"m1","from":"P0","op":0,"copy":1,"via":"net"},
{"seq":2,"t":2,"p":"P0","kind":"end","state":"done"},
{"seq":3,"t":2,"p":"P1","kind":"end","state":"done"}
]}
`
	path := filepath.Join(dir, "r.run.json")
	if err := os.WriteFile(path, []byte(run), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &Pipeline{Mem: &Cap{Bytes: 24 << 20}}
	_, note, err := p.CheckFile(path)
	if err != nil || !strings.Contains(note, "t.json.gz: decoding it needs about") || !strings.Contains(note, "over the memory cap") {
		t.Fatalf("note %q, err %v: want the source refused under the cap", note, err)
	}
	p.Mem.Bytes = 64 << 20
	if _, note, err = p.CheckFile(path); err != nil || note != "" {
		t.Fatalf("under a larger cap: note %q, err %v", note, err)
	}
}
