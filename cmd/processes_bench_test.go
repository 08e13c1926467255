package cmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkManyProcesses reports and draws a trace of 4 events among n
// processes, and verifies a ring of n processes all sending at one
// instant: the time per n should stay flat from 10k to 40k processes.
// Each once took time quadratic in the processes (a recovery line's
// other lines scanned for each row; labels bucketed by x alone; the
// checker's ready times scanning the instant from each op: the 20k ring
// took 3.9 s of CPU to verify with ms, now 0.4 s).
func BenchmarkManyProcesses(b *testing.B) {
	for _, n := range []int{10_000, 40_000} {
		in := filepath.Join(b.TempDir(), "procs.json")
		if err := os.WriteFile(in, manyProcesses(n), 0o644); err != nil {
			b.Fatal(err)
		}
		ring := filepath.Join(b.TempDir(), "ring.json")
		if err := os.WriteFile(ring, ringTrace(n), 0o644); err != nil {
			b.Fatal(err)
		}
		for _, args := range [][]string{
			{"report", "--max-memory", "2GiB", "-o", filepath.Join(b.TempDir(), "r.txt"), in},
			{"diagram", "-o", filepath.Join(b.TempDir(), "d.svg"), in},
			// Every process acting at one instant: the checker's ready
			// times once scanned the instant from each op.
			{"verify", "-q", "--algo", "ms", ring},
		} {
			b.Run(fmt.Sprintf("%s/%d", args[0], n), func(b *testing.B) {
				for b.Loop() {
					var out, errOut bytes.Buffer
					if rc := Main(args, nil, &out, &errOut); rc > 1 { // 1: a finding in the report
						b.Fatalf("exit %d: %s", rc, errOut.String())
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/process")
			})
		}
	}
}

// manyProcesses is a trace of n processes where P0 sends P1 a message,
// P1 checkpoints and P0 fails.
func manyProcesses(n int) []byte {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%q", fmt.Sprintf("P%d", i))
	}
	return fmt.Appendf(nil, `{"format": "ckpt/trace@1", "processes": [%s], "events": [
{"t": 0, "p": "P0", "kind": "send", "to": "P1", "msg": "m1"}, {"t": 1, "p": "P1", "kind": "recv", "msg": "m1"},
{"t": 2, "p": "P1", "kind": "checkpoint"}, {"t": 3, "p": "P0", "kind": "fail"}]}`, strings.Join(names, ", "))
}

// ringTrace is a trace of n processes, each sending the next a message
// at t=0 and receiving its own at t=1.
func ringTrace(n int) []byte {
	names := make([]string, n)
	events := make([]string, 0, 2*n)
	for i := range names {
		names[i] = fmt.Sprintf("%q", fmt.Sprintf("P%d", i))
		events = append(events, fmt.Sprintf(`{"t": 0, "p": "P%d", "kind": "send", "to": "P%d", "msg": "m%d"}`, i, (i+1)%n, i))
	}
	for i := range names {
		events = append(events, fmt.Sprintf(`{"t": 1, "p": "P%d", "kind": "recv", "msg": "m%d"}`, (i+1)%n, i))
	}
	return fmt.Appendf(nil, `{"format": "ckpt/trace@1", "processes": [%s], "events": [%s]}`, strings.Join(names, ", "), strings.Join(events, ",\n"))
}
