package cmd

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/ckpt-dev/ckpt/trace"
)

func TestGenCommand(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
		out    string // file to read back ("" = stdout)
	}{
		{"stdout", []string{"gen", "--events", "30", "--seed", "3"}, ExitOK, "", ""},
		{"every knob", []string{"gen", "--procs", "6", "--events", "300", "--seed", "9", "--send-ratio", "0.7",
			"--topology", "random", "--delay", "uniform:0.1:0.9", "--op-gap", "exp:0.5", "--tick", "2,3,5",
			"--flush-every", "1.5", "--failures", "3", "--concurrent", "--in-transit", "2", "--down", "0.75",
			"--restart-delay", "2", "--control-delay", "0.1", "--default-delay", "3", "--resolution", "0.01",
			"-o", filepath.Join(dir, "all.json")}, ExitOK, "", "all.json"},
		{"jsonl gz", []string{"gen", "--events", "30", "-o", filepath.Join(dir, "t.jsonl.gz")}, ExitOK, "", "t.jsonl.gz"},
		{"gzip flag", []string{"gen", "--events", "30", "--gzip", "-o", filepath.Join(dir, "t.bin")}, ExitOK, "", "t.bin"},
		{"bad delay", []string{"gen", "--delay", "exp:0"}, ExitInvalid, "mean must be > 0", ""},
		{"bad ratio", []string{"gen", "--send-ratio", "2"}, ExitInvalid, "ckpt: --send-ratio 2: want a number in [0, 1]\n", ""},
		// One message shape for every numeric flag (issue 15): the flag,
		// the value, what is wanted; 0 and -1 alike for a delay.
		{"bad down", []string{"gen", "--down", "0"}, ExitInvalid, "ckpt: --down 0: want a number of seconds > 0\n", ""},
		{"negative down", []string{"gen", "--down", "-1"}, ExitInvalid, "ckpt: --down -1: want a number of seconds > 0\n", ""},
		{"huge down", []string{"gen", "--down", "1e12"}, ExitInvalid, "ckpt: --down 1e12: want a number of seconds > 0, at most 2305843009.213693951 s (about 73 years)\n", ""},
		{"bad events", []string{"gen", "--events", "x"}, ExitInvalid, "ckpt: --events x: want a whole number >= 0\n", ""},
		{"negative events", []string{"gen", "--events", "-5"}, ExitInvalid, "ckpt: --events -5: want a whole number >= 0\n", ""},
		{"negative seed", []string{"gen", "--seed", "-1"}, ExitInvalid, "ckpt: --seed -1: want a whole number >= 0\n", ""},
		{"no procs", []string{"gen", "--procs", "0"}, ExitInvalid, "ckpt: --procs 0: want a whole number >= 1\n", ""},
		{"negative flush period", []string{"gen", "--flush-every", "-1"}, ExitInvalid, "ckpt: --flush-every -1: want a number of seconds >= 0\n", ""},
		{"gzip named json", []string{"gen", "--gzip", "-o", filepath.Join(dir, "plain.json")}, ExitInvalid, "plain.json names a plain JSON file: name it", ""},
		{"jsonl named json", []string{"gen", "--jsonl", "-o", filepath.Join(dir, "doc.json")}, ExitInvalid, "--jsonl writes JSON Lines, but -o", ""},
		{"too many ticks", []string{"gen", "--procs", "2", "--tick", "1,2,3"}, ExitInvalid, "3 tick periods for 2 processes", ""},
		{"args", []string{"gen", "x"}, ExitInvalid, "takes 0 argument", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := Main(tt.args, strings.NewReader(""), &out, &errOut)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tt.code, errOut.String())
			}
			if !strings.Contains(errOut.String(), tt.stderr) {
				t.Fatalf("stderr %q does not contain %q", errOut.String(), tt.stderr)
			}
			if code != ExitOK {
				if out.Len() > 0 {
					t.Fatalf("wrote %q on error", out.String())
				}
				return
			}
			var tr *trace.Trace
			var err error
			if tt.out == "" {
				tr, err = codec.ReadTrace("-", &out)
			} else {
				tr, err = codec.ReadTraceFile(filepath.Join(dir, tt.out))
			}
			if err != nil {
				t.Fatalf("output does not read back: %v", err)
			}
			if len(tr.Events) == 0 {
				t.Fatal("no events")
			}
		})
	}
	// The extension chose JSON Lines + gzip, the flag gzip only.
	b, _ := os.ReadFile(filepath.Join(dir, "t.jsonl.gz"))
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Error("t.jsonl.gz is not gzip")
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	first, _ := bufio.NewReader(zr).ReadString('\n')
	if strings.Contains(first, "events") || !strings.HasPrefix(first, `{"format":"ckpt/trace@1"`) {
		t.Errorf("t.jsonl.gz is not JSON Lines: first line %q", first)
	}
	tr, err := codec.ReadTraceFile(filepath.Join(dir, "all.json"))
	if err != nil {
		t.Fatal(err)
	}
	if want := (trace.Params{RestartDelay: 2 * trace.Second, ControlDelay: trace.Second / 10, DefaultDelay: 3 * trace.Second}); tr.Params != want {
		t.Errorf("params %+v, want %+v", tr.Params, want)
	}
	if len(tr.Processes) != 6 {
		t.Errorf("%d processes", len(tr.Processes))
	}
	fails := 0
	for _, e := range tr.Events {
		if e.Kind == trace.Fail {
			fails++
			if e.Down != 3*trace.Second/4 {
				t.Errorf("down %v, want 0.75", e.Down)
			}
		}
	}
	if fails != 3 {
		t.Errorf("%d failures, want 3", fails)
	}
	b, _ = os.ReadFile(filepath.Join(dir, "t.bin"))
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Error("--gzip output is not gzip")
	}
}
