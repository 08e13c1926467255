package pipeline

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/consistency"
	"github.com/ckpt-dev/ckpt/measure"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/codec"
	"github.com/ckpt-dev/ckpt/trace/gen"
	"github.com/goccy/go-json"
)

// TestCheckFileSameReports: a run checked as it is decoded (CheckFile:
// two passes, each event's vectors dropped once the checker took it)
// gets the very report, byte for byte, that the run read whole and
// checked gets (Check) — on generated runs of 16 processes of every
// algorithm and variant, with failures for those that recover, written
// as ckpt/run@1 and @2, as a document and as gzip JSON Lines, with its
// source trace and without, and with the processes after the events
// (read whole).
func TestCheckFileSameReports(t *testing.T) {
	dir := t.TempDir()
	p := &Pipeline{Mem: &Cap{Bytes: 1 << 40}}
	n := 0
	for _, a := range algorithms.All {
		cfg := gen.DefaultConfig()
		cfg.Seed, cfg.Procs, cfg.Events = uint64(len(a.Name)), 16, 1500
		if a.Recovery {
			cfg.Failures, cfg.Concurrent = 8, a.Name == "pk"
		}
		tr, err := gen.Trace(cfg)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, a.Name+".json"), func(b *bytes.Buffer) error { return codec.WriteTrace(b, tr, codec.WriteOptions{}) })
		variants := []string{""}
		for _, v := range a.Variants {
			variants = append(variants, v.Name)
		}
		for _, v := range variants {
			alg, err := a.New(v, tr)
			if err != nil {
				t.Fatal(err)
			}
			run, err := replay.Run(tr, alg, replay.Options{Variant: v})
			if err != nil {
				t.Fatal(err)
			}
			for i, o := range []codec.WriteOptions{{}, {Compact: true}, {Compact: true, JSONL: true, Gzip: true}} {
				for _, src := range []string{a.Name + ".json", "missing.json"} {
					run.Source = src
					path := filepath.Join(dir, fmt.Sprintf("%s-%s-%d-%s", a.Name, v, i, src))
					writeFile(t, path, func(b *bytes.Buffer) error { return codec.WriteRun(b, run, o) })
					sameCheck(t, p, path)
					n++
				}
			}
			run.Source = a.Name + ".json"
			path := filepath.Join(dir, a.Name+v+"-late.json")
			writeFile(t, path, func(b *bytes.Buffer) error {
				if err := codec.WriteRun(b, run, codec.WriteOptions{}); err != nil {
					return err
				}
				late := regexp.MustCompile(`"processes":\[[^]]*\],`)
				procs := late.Find(b.Bytes())
				doc := late.ReplaceAll(b.Bytes(), nil)
				doc = append(bytes.TrimRight(doc, "}\n"), append([]byte(","), procs[:len(procs)-1]...)...)
				b.Reset()
				b.Write(append(doc, '}'))
				return nil
			})
			sameCheck(t, p, path)
		}
	}
	if n < 40 {
		t.Fatalf("only %d runs checked", n)
	}
}

// sameCheck checks the run at path both ways and compares the reports.
func sameCheck(t *testing.T, p *Pipeline, path string) {
	t.Helper()
	run, err := p.ReadRun(path)
	if err != nil {
		t.Fatal(err)
	}
	want, wantNote, err := p.Check(run, path)
	if err != nil {
		t.Fatal(err)
	}
	got, note, err := p.CheckFile(path)
	if err != nil {
		t.Fatal(err)
	}
	w, g := marshal(t, want), marshal(t, got)
	if g != w || note != wantNote {
		t.Fatalf("%s: checked as decoded (note %q):\n%.3000s\nread whole, then checked (note %q):\n%.3000s", path, note, g, wantNote, w)
	}
	if strings.Contains(path, "missing") != (note != "") {
		t.Fatalf("%s: note %q", path, note)
	}
}

// TestCheckFileErrors: a run that is invalid gets from CheckFile the
// error reading it whole gives — the first problem, even where the
// first pass, which checks no event's fields, finds a later one — and
// a run whose file gains a message between the passes is refused.
func TestCheckFileErrors(t *testing.T) {
	dir := t.TempDir()
	head := `{"format":"ckpt/run@1","algorithm":"ms","processes":["P0","P1"],"events":[` + "\n"
	send := `{"seq":0,"t":1,"p":"P0","kind":"send","to":"P1","msg":"m1","op":0,"copy":1,"pb":{"sn":0,"inc":0,"rec_line":0}}`
	for name, doc := range map[string]string{
		"bad field, then bad syntax": head + `{"seq":0,"t":"x","p":"P0","kind":"send"},` + "\n" + `{"seq":1,,}]}`,
		"bad syntax":                 head + send + ",\n" + `{"seq":1,,}]}`,
		"bad header":                 head + send + "\n" + `], "processes": 3}`,
		"missing processes":          `{"format":"ckpt/run@1","algorithm":"ms","events":[]}`,
	} {
		path := filepath.Join(dir, "bad.json")
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		p := &Pipeline{}
		_, wantErr := p.ReadRun(path)
		_, _, err := p.CheckFile(path)
		if wantErr == nil || err == nil || err.Error() != wantErr.Error() {
			t.Errorf("%s: CheckFile: %v, want the error of reading it whole: %v", name, err, wantErr)
		}
	}
	first := head + send + "]}"
	h, err := codec.ScanRun("r.json", strings.NewReader(first))
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.Stream(strings.NewReader(strings.ReplaceAll(first, "m1", "m2")), func(_ *trace.Run, upto int) int { return upto })
	if err == nil || !strings.Contains(err.Error(), `message "m2" was not in the file when it was first read`) {
		t.Fatalf("a message the first pass did not meet: %v", err)
	}
}

func writeFile(t *testing.T, path string, write func(b *bytes.Buffer) error) {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func marshal(t *testing.T, v any) string {
	t.Helper()
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestVerifyDroppingVectorsSameReports: a run judged as verify judges
// it — the checker takes each event as the engine makes it final, and
// the engine drops every vector it may (replay/release.go), those a
// restore read included — gets the report checking the whole run gives,
// on generated traces with failures, concurrent ones too, whose restores
// come long after the checkpoints and receipts they read.
func TestVerifyDroppingVectorsSameReports(t *testing.T) {
	dropped := 0
	for seed := uint64(1); seed <= 6; seed++ {
		cfg := gen.DefaultConfig()
		cfg.Seed, cfg.Procs, cfg.Events, cfg.Failures, cfg.Concurrent = seed, 8, 3000, 10, seed%2 == 0
		cfg.Ticks = []trace.Time{trace.Second, trace.Second * 3 / 2}
		tr, err := gen.Trace(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range algorithms.Names {
			var s *consistency.Stream
			fed := 0
			run := replayed(t, name, tr, func(run *trace.Run, upto int) int {
				if s == nil {
					s = consistency.NewStream(run, tr, 0)
				}
				for ; fed < upto; fed++ {
					s.Add(&run.Events[fed])
				}
				return upto
			})
			for i := range run.PBs {
				if run.PBs[i].VT == nil {
					dropped++
				}
			}
			r := s.Report()
			measure.Fill(&r, s.Model(), measure.StartBaseline(tr))
			got, want := marshal(t, r), marshal(t, Report(replayed(t, name, tr, nil), tr))
			if got != want {
				t.Fatalf("seed %d, %s: judged as verify does:\n%.3000s\nthe whole run checked:\n%.3000s", seed, name, got, want)
			}
		}
	}
	if dropped == 0 {
		t.Fatal("the engine dropped no vector")
	}
}

// replayed replays tr through algorithm name, streaming the run to take.
func replayed(t *testing.T, name string, tr *trace.Trace, take func(*trace.Run, int) int) *trace.Run {
	t.Helper()
	alg, err := algorithms.New(name, "", tr)
	if err != nil {
		t.Fatal(err)
	}
	run, err := replay.Run(tr, alg, replay.Options{Stream: take})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// TestStreamCheckEstimate: checking a PK run as it is decoded counts a
// vector per copy in flight when the source trace shows no failure, and
// one per send and checkpoint otherwise (PK's spec keeps what a recovery
// may read); without the source, every one too.
func TestStreamCheckEstimate(t *testing.T) {
	h := &codec.RunHead{Run: &trace.Run{Algorithm: "pk", Processes: make([]string, 1000)}, Compact: true,
		Sizes: trace.Sizes{Events: 100000, Sends: 30000, Checkpoints: 5000}, InFlight: 100}
	quiet := &trace.Trace{Events: []trace.Event{{Kind: trace.Send}}}
	failing := &trace.Trace{Events: []trace.Event{{Kind: trace.Fail}}}
	vectors := func(n int64) int64 { return n * 1000 * 8 }
	for _, tc := range []struct {
		name     string
		src      *trace.Trace
		min, max int64
	}{
		{"no failure", quiet, vectors(100 + 1000), vectors(1000)},
		{"a failure", failing, vectors(35000), vectors(40000)},
		{"no source", nil, vectors(35000), vectors(40000)},
	} {
		e := streamCheckEstimate(h, tc.src)
		if e.bytes < tc.min || e.bytes > tc.max+baseBytes+100000*400 {
			t.Errorf("%s: estimate %s (%s), want %s to %s beside the events", tc.name, FormatBytes(e.bytes), e.why, FormatBytes(tc.min), FormatBytes(tc.max))
		}
	}
}
