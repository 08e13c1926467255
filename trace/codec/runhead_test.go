package codec

import (
	"bytes"
	"slices"
	"testing"

	"github.com/ckpt-dev/ckpt/trace"
)

// twoPasses checks the two-pass read of data (ScanRun, then
// RunHead.Stream) against whole and wholeErr, what ReadRun read of it:
// the first pass never panics, and where ReadRun reads the run, finds
// the message table in the decoder's order, and the second pass reads
// the same run.
func twoPasses(t *testing.T, data []byte, whole *trace.Run, wholeErr error) {
	t.Helper()
	h, err := ScanRun("fuzz", bytes.NewReader(data))
	if wholeErr != nil {
		return
	}
	if err != nil {
		t.Fatalf("ReadRun reads it, ScanRun: %v", err)
	}
	if !slices.Equal(h.Run.Msgs, whole.Msgs) || h.Events != int64(len(whole.Events)) {
		t.Fatalf("ScanRun: %d messages %q, %d events; ReadRun: %q, %d", len(h.Run.Msgs), h.Run.Msgs, h.Events, whole.Msgs, len(whole.Events))
	}
	calls := 0
	got, err := h.Stream(bytes.NewReader(data), func(*trace.Run, int) int { calls++; return 0 })
	if err != nil || calls == 0 {
		t.Fatalf("RunHead.Stream: %v, %d calls", err, calls)
	}
	if !slices.Equal(got.Msgs, whole.Msgs) {
		t.Fatalf("read in two passes, %d messages %q; read whole, %d %q", len(got.Msgs), got.Msgs, len(whole.Msgs), whole.Msgs)
	}
	var a, b bytes.Buffer
	if err := WriteRun(&a, whole, WriteOptions{JSONL: true}); err != nil {
		t.Fatal(err)
	}
	if err := WriteRun(&b, got, WriteOptions{JSONL: true}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatalf("read in two passes:\n%s\nread whole:\n%s", b.Bytes(), a.Bytes())
	}
}
