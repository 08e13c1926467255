package pipeline

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/replay"
)

// TestFitsEach: the sweep's estimate is its costliest protocol's, once
// per trace held at once (never more than the workers), and a cap below
// it refuses naming the traces, the protocol and what is big.
func TestFitsEach(t *testing.T) {
	s := replay.Sizes{Events: 303100, Msgs: 150000, Procs: 100, Busy: 100, Sends: 150000, Recvs: 150000, Checkpoints: 3100}
	names := []string{"ms", "pk", "bcs"}
	one := eachEstimate("traces of 100 processes", s, names, 1).bytes
	two := eachEstimate("traces of 100 processes", s, names, 2).bytes
	if two != 2*one-baseBytes {
		t.Errorf("one trace %d, two at once %d: the traces held at once add up", one, two)
	}
	// pk's at 100 processes and ICT/MTT 50: 296 MiB, measured 268 MiB
	// (eachEstimate).
	if one < 268<<20 || one > 320<<20 {
		t.Errorf("estimate %s, want about 296 MiB", FormatBytes(one))
	}
	for _, tc := range []struct {
		cores, n int
		bytes    int64
	}{{1, 5, one}, {2, 5, two}, {4, 2, two}, {2, 1, one}} {
		p := &Pipeline{Mem: &Cap{Bytes: tc.bytes}, Cores: tc.cores}
		if err := p.FitsEach("compare --sweep", "traces of 100 processes", s, names, tc.n); err != nil {
			t.Errorf("cores %d, %d traces: a cap at the estimate: %v", tc.cores, tc.n, err)
		}
		p.Mem.Bytes--
		err := p.FitsEach("compare --sweep", "traces of 100 processes", s, names, tc.n)
		if err == nil || !strings.HasPrefix(err.Error(), "compare --sweep: replaying traces of 100 processes, ") ||
			!strings.Contains(err.Error(), " at once, through pk needs about") || !strings.Contains(err.Error(), "a 100-entry vector for each of 150000 sends") {
			t.Errorf("cores %d, %d traces: %v", tc.cores, tc.n, err)
		}
	}
}

// TestFitsImport: import's estimate counts a text log by its bytes and
// lines, JSON by its bytes and objects, and recordings by all three,
// each told past a byte-order mark and white space, and a gzipped file
// as what it decompresses to; stdin and what is no regular file are not
// counted.
func TestFitsImport(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	logText := strings.Repeat("a {\"a\":1}\nx\n", 1000)
	spanText := "\ufeff \n" + strings.Repeat(`[{"id":"1","localEndpoint":{"serviceName":"a"}}]`+"\n", 100)
	recText := `{"format":"ckpt/recording@1","process":"P0"}` + "\n" + strings.Repeat(`{"n":1,"kind":"internal"}`+"\n", 99)
	log, spans, rec := write("a.log", logText), write("s.json", spanText), write("P0.jsonl", recText)
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write([]byte(logText))
	zw.Close()
	logGz := write("a.log.gz", zipped.String())
	text, js, recs := importKinds[0], importKinds[1], importKinds[2]
	textBytes := int64(len(logText))*text.byte + 2000*text.line
	spanBytes := int64(len(spanText))*js.byte + 200*js.object
	recBytes := int64(len(recText))*recs.byte + 100*recs.line + 100*recs.object
	for _, tc := range []struct {
		paths []string
		bytes int64
		why   string
	}{
		{[]string{log}, textBytes, "11.7 KiB of text in 2000 lines"},
		{[]string{logGz}, textBytes, "11.7 KiB of text in 2000 lines"},
		{[]string{spans, "-", dir, filepath.Join(dir, "missing")}, spanBytes, "4.8 KiB of JSON with 200 objects"},
		{[]string{log, spans}, textBytes + spanBytes, "11.7 KiB of text in 2000 lines and 4.8 KiB of JSON with 200 objects"},
		{[]string{rec}, recBytes, "2.6 KiB of recordings in 100 lines"},
	} {
		if e := importEstimate(tc.paths, 1<<62); e.bytes != baseBytes+tc.bytes || e.why != tc.why {
			t.Errorf("%q: %d bytes (%s), want %d (%s)", tc.paths, e.bytes, e.why, baseBytes+tc.bytes, tc.why)
		}
		p := &Pipeline{Mem: &Cap{Bytes: baseBytes + tc.bytes}}
		if err := p.FitsImport(tc.paths); err != nil {
			t.Errorf("%q: a cap at the estimate: %v", tc.paths, err)
		}
		p.Mem.Bytes--
		if err := p.FitsImport(tc.paths); err == nil || !strings.Contains(err.Error(), ": importing it needs about") {
			t.Errorf("%q: a cap below the estimate: %v", tc.paths, err)
		}
	}
	if err := (&Pipeline{Mem: &Cap{Bytes: 1}}).FitsImport([]string{"-"}); err != nil {
		t.Errorf("stdin alone: %v", err)
	}
}

// blankLines yields n newlines, counting what was read of it.
type blankLines struct{ left, read int64 }

func (b *blankLines) Read(p []byte) (int, error) {
	if b.left == 0 {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), b.left))
	for i := range n {
		p[i] = '\n'
	}
	b.left, b.read = b.left-int64(n), b.read+int64(n)
	return n, nil
}

// TestImportStopsAtCap: a file (a gzip bomb of blank lines) is counted
// no further than the cap, and stdin, which is not counted ahead, fails
// its reads once what was read passes the cap; both say "more than" and
// what was read. Under the cap, the meter passes everything on.
func TestImportStopsAtCap(t *testing.T) {
	bomb := &blankLines{left: 1 << 34}
	c := countImport(bomb, baseBytes+1<<20)
	if !c.cut || bomb.read > 1<<20 {
		t.Errorf("counting a bomb under a 1 MiB budget read %d bytes (cut %v)", bomb.read, c.cut)
	}
	if c := countImport(&blankLines{left: 10}, baseBytes+10*(7+240)-1); c.cut || c.lines != 10 {
		t.Errorf("all read though over the budget: %+v, want not cut", c)
	}
	p := &Pipeline{Mem: &Cap{Bytes: baseBytes + 1<<20}}
	in := &blankLines{left: 1 << 34}
	r, over := p.MeterImport("standard input", in)
	_, err := io.Copy(io.Discard, r)
	want := "standard input: importing it needs more than 17.9 MiB of memory (the first 8.0 KiB of text in 8192 lines, counted no further), over the memory cap of 17.0 MiB (--max-memory)"
	if err == nil || err != over() || err.Error() != want || in.read > 1<<20 {
		t.Errorf("stdin over the cap: read %d bytes, error %v, want %q…", in.read, err, want)
	}
	r, over = (&Pipeline{Mem: &Cap{}}).MeterImport("standard input", &blankLines{left: 1 << 20})
	if n, err := io.Copy(io.Discard, r); n != 1<<20 || err != nil || over() != nil {
		t.Errorf("no cap: read %d bytes, %v, %v", n, err, over())
	}
}
