package cmd

import (
	"bytes"
	"io"
	"os"
	"path/filepath"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/ckpt-dev/ckpt/output"
	"github.com/ckpt-dev/ckpt/record"
)

// recordings reports whether every file is a per-process recording of
// package record: its first line names record.Format. Standard input is
// never one (merging needs every process's file).
func recordings(args []string) bool {
	for _, path := range args {
		f, err := os.Open(path)
		if err != nil {
			return false
		}
		head := make([]byte, 64)
		n, _ := io.ReadFull(f, head)
		f.Close()
		if !bytes.Contains(head[:n], []byte(`"`+record.Format+`"`)) {
			return false
		}
	}
	return len(args) > 0
}

// importRecordings merges per-process recordings (docs/record.md). A
// recording of a protocol's run merges into a run and the trace it
// executed, written as DIR/run.json and DIR/trace.json (the run names
// the trace as its source, so `ckpt check DIR/run.json` compares them);
// a recording of a program alone merges into a trace, written like any
// import.
func (o *importOptions) importRecordings(ios *IO, args []string) error {
	m, err := record.MergeFiles(args...)
	if err != nil {
		return invalid(err)
	}
	if m.Run == nil {
		return output.Write(o.Output, ios.Out, func(w io.Writer) error {
			return codec.WriteTrace(w, m.Trace, codec.WriteOptions{JSONL: o.JSONL, Gzip: o.Gzip})
		})
	}
	if o.Output == "" || o.Output == "-" {
		return usagef("import: recordings of a protocol's run merge into a run and its trace: give -o DIR")
	}
	if err := output.MakeDir(o.Output); err != nil {
		return invalid(err)
	}
	m.Run.Source = "trace.json"
	if err := output.Write(filepath.Join(o.Output, "trace.json"), ios.Out, func(w io.Writer) error {
		return codec.WriteTrace(w, m.Trace, codec.WriteOptions{})
	}); err != nil {
		return invalid(err)
	}
	return output.Write(filepath.Join(o.Output, "run.json"), ios.Out, func(w io.Writer) error {
		return codec.WriteRun(w, m.Run, codec.WriteOptions{})
	})
}
