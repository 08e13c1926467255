package cmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/algorithms"
	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/gen/gentest"
)

// runSize is a lower bound on the written run (a refusal must never stop
// a run that would have fit), and not a vacuous one: it is within 8× of
// the file (PK's vectors make events long), in both layouts, for runs
// with and without token lists.
func TestRunSizeIsALowerBound(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		tr := gentest.Seeded(seed, 2+int(seed%5), 40+int(seed)*10, int(seed%4))
		for _, name := range []string{"ms", "pk"} {
			run := replayWith(t, name, tr, replay.Options{})
			need, ids := runSize(run)
			var want int64
			for i := range run.Events {
				if b := run.Events[i].Body; b != trace.None {
					want += int64(len(run.Bodies[b].ReceivedList()))
				}
			}
			if ids != want {
				t.Errorf("seed %d %s: %d identities counted, the bodies list %d", seed, name, ids, want)
			}
			for _, jsonl := range []bool{false, true} {
				var buf bytes.Buffer
				if err := trace.WriteRun(&buf, run, trace.WriteOptions{JSONL: jsonl}); err != nil {
					t.Fatal(err)
				}
				if got := int64(buf.Len()); need > got || 8*need < got {
					t.Errorf("seed %d %s jsonl=%v: estimate %d bytes, written %d", seed, name, jsonl, need, got)
				}
			}
		}
	}
}

// A run that cannot fit the output's filesystem is refused before
// anything is written: exit 2, one line naming the file, the size and
// why, and no file (a PK run of 10^5 failures needs ~75 GiB).
func TestReplayRefusesWhatTheDiskCannotHold(t *testing.T) {
	// A trace with failures, so that PK's tokens list receipts.
	src := filepath.Join(t.TempDir(), "failures.json")
	var doc bytes.Buffer
	if err := trace.WriteTrace(&doc, gentest.Seeded(3, 3, 80, 2), trace.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, doc.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		out  string
		free int64
		want string // "" = written
	}{
		{"run.json", 100, "the run would take at least"},
		{"run.jsonl", 100, "receipt identities listed in control messages"},
		{"run.json.gz", 10, "even compressed at least"},
		{"run.json.gz", 1 << 20, ""},
		{"run.json", 1 << 30, ""},
	}
	defer func(f func(string) (int64, bool)) { freeSpaceOf = f }(freeSpaceOf)
	for _, tc := range tests {
		dir := t.TempDir()
		out := filepath.Join(dir, tc.out)
		freeSpaceOf = func(string) (int64, bool) { return tc.free, true }
		var stdout, stderr bytes.Buffer
		code := Main([]string{"replay", "--algo", "pk", src, "-o", out}, nil, &stdout, &stderr)
		_, statErr := os.Stat(out)
		if tc.want == "" {
			if code != 0 || statErr != nil {
				t.Errorf("%s with %d bytes free: exit %d, %v; stderr %s", tc.out, tc.free, code, statErr, stderr.String())
			}
			continue
		}
		msg := stderr.String()
		if code != 2 || !strings.Contains(msg, tc.want) || !strings.Contains(msg, out) || strings.Count(msg, "\n") != 1 {
			t.Errorf("%s with %d bytes free: exit %d, stderr %q; want exit 2 and one line with %q", tc.out, tc.free, code, msg, tc.want)
		}
		if statErr == nil {
			t.Errorf("%s: written although refused", tc.out)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
			t.Errorf("%s: left %v", tc.out, left)
		}
	}
}

// The least a run event can take: one process named "a", whole-second
// times and internal ops (38 bytes an event, review finding: 60 was
// over it).
func TestRunSizeOfTheShortestEvents(t *testing.T) {
	var doc strings.Builder
	doc.WriteString(`{"format":"ckpt/trace@1","processes":["a"],"events":[`)
	for i := range 3500 {
		if i > 0 {
			doc.WriteString(",")
		}
		fmt.Fprintf(&doc, `{"t":%d,"p":"a","kind":"internal"}`, i+1)
	}
	doc.WriteString("]}")
	tr, err := trace.ReadTrace("short.json", strings.NewReader(doc.String()))
	if err != nil {
		t.Fatal(err)
	}
	run := replayWith(t, "ms", tr, replay.Options{})
	need, _ := runSize(run)
	for _, jsonl := range []bool{false, true} {
		var buf bytes.Buffer
		if err := trace.WriteRun(&buf, run, trace.WriteOptions{JSONL: jsonl}); err != nil {
			t.Fatal(err)
		}
		if int64(buf.Len()) < need {
			t.Errorf("jsonl=%v: estimate %d bytes, written %d", jsonl, need, buf.Len())
		}
	}
}

// replayWith replays tr through a fresh algorithm name with opts.
func replayWith(t *testing.T, name string, tr *trace.Trace, opts replay.Options) *trace.Run {
	t.Helper()
	alg, err := algorithms.New(name, "", tr)
	if err != nil {
		t.Fatal(err)
	}
	run, err := replay.Run(tr, alg, opts)
	if err != nil {
		t.Fatal(err)
	}
	return run
}
