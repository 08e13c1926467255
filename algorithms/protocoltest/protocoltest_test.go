// Package protocoltest holds, in test files only, the tests of the
// checkpoint-placement protocols (algorithms/bcs, fdas, hmnr,
// coordinated; bcs_test.go and so on) and the harness they share:
// replaying and golden runs, the failure-free checkpoint and
// communication pattern of a run and its promises (Z-cycles, RDT,
// consistent S_n lines), counts, random failure-free traces, a
// brute-force model of executions for reference implementations, and
// test-only mutants built by filtering a protocol's effects. Being test
// code, the harness is in no binary; the tests that change a machine's
// state stay in its package.
package protocoltest

import (
	"bytes"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/ckpt-dev/ckpt/replay"
	"github.com/ckpt-dev/ckpt/trace"
)

// T is what the helpers need of a test: *testing.T, *testing.B and
// *rapid.T all have it.
type T interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// Replay runs tr through alg, failing the test on an error.
func Replay(t T, tr *trace.Trace, alg replay.Algorithm) *trace.Run {
	t.Helper()
	run, err := replay.Run(tr, alg, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// Encode returns run in the run format's JSON Lines form.
func Encode(t T, run *trace.Run) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := codec.WriteRun(&b, run, codec.WriteOptions{JSONL: true}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
