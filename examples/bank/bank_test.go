//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-dev/ckpt/trace/codec"
	"github.com/ckpt-dev/ckpt/trace/tracetest"

	json "github.com/goccy/go-json"

	"github.com/ckpt-dev/ckpt/cmd"
	_ "github.com/ckpt-dev/ckpt/internal/golden" // every test binary takes -update
	"github.com/ckpt-dev/ckpt/trace"
)

// The test binary is also the branches' binary: the driver starts
// os.Executable() with BANK_BRANCH set.
func TestMain(m *testing.M) {
	if os.Getenv("BANK_BRANCH") != "" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// run drives a bank run into a fresh directory, which it returns.
func run(t *testing.T, o options) (*outcome, string) {
	t.Helper()
	o.Out = t.TempDir()
	o.Transfers, o.Tick, o.Gap, o.Down, o.Timeout = 60, 20*time.Millisecond, 3*time.Millisecond, 50*time.Millisecond, 60*time.Second
	out, err := drive(o) // kills its branches on every error
	if err != nil {
		t.Fatal(err)
	}
	return out, o.Out
}

// checked is what `ckpt check --format json` says of a run.
type checked struct {
	Valid             bool `json:"valid"`
	FailuresExercised int  `json:"failures_exercised"`
	Properties        []struct {
		Name       string `json:"name"`
		Status     string `json:"status"`
		Violations []struct {
			Message string `json:"message"`
			Because string `json:"because"`
		} `json:"violations"`
	} `json:"properties"`
}

// check runs `ckpt check` on dir/run.json, as the command line does.
func check(t *testing.T, dir string, wantStatus int) checked {
	t.Helper()
	var out, errOut bytes.Buffer
	if got := cmd.Main([]string{"check", "--format", "json", filepath.Join(dir, "run.json")}, nil, &out, &errOut); got != wantStatus {
		t.Fatalf("ckpt check exited %d, want %d: %s%s", got, wantStatus, out.String(), errOut.String())
	}
	var reps []checked
	if err := json.Unmarshal(out.Bytes(), &reps); err != nil || len(reps) != 1 {
		t.Fatalf("ckpt check: %v: %s", err, out.String())
	}
	return reps[0]
}

// TestRecovers: with three branches killed at random moments, MS
// recovers every one, the money is all there, and ckpt finds the run
// valid with every crash exercised — on every schedule the crash moments
// fall on.
func TestRecovers(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		o := options{Procs: 4, Crashes: 3, Seed: seed}
		out, dir := run(t, o)
		if out.End != out.Start || out.Crashes != 3 {
			t.Errorf("seed %d: %d crashes, money %d at the start and %d at the end", seed, out.Crashes, out.Start, out.End)
		}
		for i, e := range out.Ends {
			if e != "done" {
				t.Errorf("seed %d: P%d ended %s", seed, i, e)
			}
		}
		rep := check(t, runDir(t, dir), 0)
		if !rep.Valid || rep.FailuresExercised != 3 {
			t.Errorf("seed %d: valid %v with %d failures exercised, want 3", seed, rep.Valid, rep.FailuresExercised)
		}
		// The run says its times were recorded: equivalence is judged
		// on the programs and causal order, and passes (docs/record.md).
		for _, p := range rep.Properties {
			if p.Status != "pass" && p.Status != "n/a" {
				t.Errorf("seed %d: %s is %s, want pass or n/a", seed, p.Name, p.Status)
			}
		}
	}
}

// TestNoLogLosesMoney: without MS's message log, P0 crashes after it
// received P1's first transfer (which it had to log), cannot replay it,
// and P1 never sends it again: the money is gone, and ckpt says why.
func TestNoLogLosesMoney(t *testing.T) {
	o := options{Procs: 4, Crashes: 0, Seed: 7, NoLog: true}
	out, dir := run(t, o)
	if out.End >= out.Start || out.Crashes == 0 {
		t.Errorf("%d crashes, money %d at the start and %d at the end: nothing lost", out.Crashes, out.Start, out.End)
	}
	rep := check(t, runDir(t, dir), 1)
	want := map[string]string{"no-lost-messages": "P1.0 is lost", "log-replay-rules": "P0 delivers P1.0"}
	for _, p := range rep.Properties {
		w, ok := want[p.Name]
		if !ok {
			continue
		}
		delete(want, p.Name)
		found := false
		for _, v := range p.Violations {
			found = found || strings.Contains(v.Message, w)
		}
		if p.Status != "fail" || !found {
			t.Errorf("%s is %s without a violation saying %q: %+v", p.Name, p.Status, w, p.Violations)
		}
	}
	if len(want) > 0 {
		t.Errorf("the report lacks %v", want)
	}
}

// runDir checks that dir holds the run and its trace, and that the run
// names the trace, then returns dir.
func runDir(t *testing.T, dir string) string {
	t.Helper()
	tr, err := codec.ReadTraceFile(filepath.Join(dir, "trace.json"))
	if err != nil {
		t.Fatal(err)
	}
	run, err := tracetest.ReadRunFile(filepath.Join(dir, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	if run.Source != "trace.json" || len(tr.Processes) != len(run.Processes) {
		t.Fatalf("run.json names %q as its trace", run.Source)
	}
	return dir
}

// TestPrograms: the programs are projections of one order in which every
// receive follows its send (so they cannot deadlock), each transfer is
// received once, and the first transfer is P1's first op, received as
// P0's first (what --nolog relies on).
func TestPrograms(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		n := 2 + int(seed%5)
		progs, order := programs(seed, n, 30)
		var names []string
		for i := range n {
			names = append(names, name(i))
		}
		b := tracetest.NewBuilder(names...)
		for k, s := range order {
			o := progs[s[0]][s[1]]
			switch o.Kind {
			case trace.Send:
				b.Send(float64(k), name(s[0]), name(o.Peer), o.Msg)
			case trace.Recv:
				b.Recv(float64(k), name(s[0]), o.Msg)
			default:
				b.Internal(float64(k), name(s[0]))
			}
		}
		if _, err := b.Build(); err != nil {
			t.Errorf("seed %d: %v", seed, err)
		}
		if p0, p1 := progs[0][0], progs[1][0]; p1.Kind != trace.Send || p1.Peer != 0 || p0.Kind != trace.Recv || p0.Msg != p1.Msg {
			t.Errorf("seed %d: the first transfer is not P1 → P0: %+v, %+v", seed, p1, p0)
		}
	}
}

// TestJournalTornLine: a line a crash cut short is no step.
func TestJournalTornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j")
	j, steps, err := openJournal(path)
	if err != nil || len(steps) != 0 {
		t.Fatal(err, steps)
	}
	if err := j.append(&entry{Rec: 7}); err != nil {
		t.Fatal(err)
	}
	j.f.WriteString(`{"rec":`)
	j.f.Close()
	_, steps, err = openJournal(path)
	if err != nil || len(steps) != 1 || steps[0].Rec != 7 {
		t.Fatalf("%v %+v", err, steps)
	}
	if b, _ := os.ReadFile(path); string(b) != `{"rec":7}`+"\n" {
		t.Fatalf("the torn line was not cut off: %q", b)
	}
}
