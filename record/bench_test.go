package record_test

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ckpt-dev/ckpt/record"
	"github.com/ckpt-dev/ckpt/trace"
)

// The recorder's overhead per recorded event (the figures in doc.go).
// To io.Discard, the cost of recording itself; to a file, what the
// system calls add (Send writes before it returns, Internal only when
// the buffer is full).

var procs = []string{"P0", "P1", "P2", "P3"}

func BenchmarkInternal(b *testing.B) {
	r := record.New("P0", io.Discard, record.Options{Processes: procs, Algorithm: "ms"})
	b.ReportAllocs()
	for b.Loop() {
		r.Internal("")
	}
}

func benchSend(b *testing.B, w io.Writer) {
	r := record.New("P0", w, record.Options{Processes: procs, Algorithm: "ms"})
	pb := trace.NewPiggyback()
	pb.Sn, pb.F = 3, []trace.FEntry{{P: 1, Count: 1}}
	payload := make([]byte, 64)
	b.ReportAllocs()
	for b.Loop() {
		r.SendPB("P1", &pb, payload)
	}
}

func BenchmarkSend(b *testing.B) { benchSend(b, io.Discard) }

func BenchmarkSendFile(b *testing.B) {
	f, err := os.Create(filepath.Join(b.TempDir(), "P0.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	benchSend(b, f)
}

func BenchmarkRecv(b *testing.B) {
	s := record.New("P1", io.Discard, record.Options{Processes: procs, Algorithm: "ms"})
	pb := trace.NewPiggyback()
	pb.Sn, pb.F = 3, []trace.FEntry{{P: 1, Count: 1}}
	wire, _ := s.SendPB("P0", &pb, make([]byte, 64))
	r := record.New("P0", io.Discard, record.Options{Processes: procs, Algorithm: "ms"})
	b.ReportAllocs()
	for b.Loop() {
		r.Recv(wire)
	}
}
