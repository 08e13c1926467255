package cmd

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ckpt-dev/ckpt/output"
	"github.com/ckpt-dev/ckpt/record"
	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/codec"
	"github.com/ckpt-dev/ckpt/trace/shiviz"
)

// importRecordings merges per-process recordings (docs/record.md). A
// recording of a protocol's run merges into a run and the trace it
// executed, written as DIR/run.json and DIR/trace.json (the run names
// the trace as its source, so `ckpt check DIR/run.json` compares them);
// a recording of a program alone merges into a trace, written like any
// import.
func (o *importOptions) importRecordings(ios *IO, args []string) error {
	var stdin io.Reader
	over := func() error { return nil }
	if i := slices.Index(args, "-"); i >= 0 {
		if slices.Contains(args[i+1:], "-") {
			return usagef("standard input (-) can be read once")
		}
		// Counted as read, as a log on standard input is.
		stdin, over = ios.pipe().MeterImport("standard input", ios.pipe().OpenStdin())
	}
	for _, a := range args {
		output.Reading(a)
	}
	m, err := record.MergeFiles(stdin, args...)
	if tooBig := over(); tooBig != nil {
		return tooBig
	}
	if err != nil {
		return err
	}
	if m.Run == nil {
		err = output.Write(o.Output, ios.Out, func(w io.Writer) error {
			return codec.WriteTrace(w, m.Trace, codec.WriteOptions{JSONL: o.JSONL, Gzip: o.Gzip})
		})
	} else {
		err = o.writeRun(ios, m)
	}
	if err == nil {
		o.recordingSummary(ios, args, m)
	}
	return err
}

// peekStdin returns the first bytes of standard input when args name
// it ("-"), for record.Recordings to tell a recording: the import reads
// them again, from the buffer that keeps them.
func peekStdin(ios *IO, args []string) []byte {
	p := ios.pipe()
	if !slices.Contains(args, "-") || p.Stdin == nil {
		return nil
	}
	br := bufio.NewReaderSize(p.Stdin, 1<<16)
	p.Stdin = br
	head, _ := br.Peek(512)
	return head
}

// writeRun writes a merged run and its trace into the directory -o
// names, refusing first a run.json or trace.json there that is an input.
func (o *importOptions) writeRun(ios *IO, m *record.Merged) error {
	if o.Output == "" || o.Output == "-" {
		return usagef("import: recordings of a protocol's run merge into a run and its trace: give -o DIR")
	}
	trPath, runPath := filepath.Join(o.Output, "trace.json"), filepath.Join(o.Output, "run.json")
	for _, p := range []string{trPath, runPath} {
		if output.IsInput(p) {
			return output.Check(p)
		}
	}
	if err := output.MakeDir(o.Output); err != nil {
		return err
	}
	m.Run.Source = "trace.json"
	if err := output.Write(trPath, ios.Out, func(w io.Writer) error {
		return codec.WriteTrace(w, m.Trace, codec.WriteOptions{})
	}); err != nil {
		return err
	}
	return output.Write(runPath, ios.Out, func(w io.Writer) error {
		return codec.WriteRun(w, m.Run, codec.WriteOptions{})
	})
}

// recordingSummary prints, on stderr, the counts of the merged trace, as
// every import does, and what the recordings merged into.
func (o *importOptions) recordingSummary(ios *IO, args []string, m *record.Merged) {
	if o.Quiet {
		return
	}
	st := shiviz.Stats{Processes: len(m.Trace.Processes), Events: len(m.Trace.Events), Messages: len(m.Trace.Msgs)}
	for i := range m.Trace.Events {
		switch m.Trace.Events[i].Kind {
		case trace.Checkpoint:
			st.Ticks++
		case trace.Flush:
			st.Flushes++
		case trace.Fail:
			st.Fails++
		}
	}
	into := "a program's trace"
	if m.Run != nil {
		into = fmt.Sprintf("a run of %s (%d events) and the trace it executed", m.Run.Algorithm, len(m.Run.Events))
	}
	fmt.Fprintf(ios.ErrOut, "%s: %s\n  read as recordings (ckpt/recording@1), merged into %s\n", strings.Join(args, ", "), statsLine(st), into)
	for _, n := range m.Notes {
		fmt.Fprintf(ios.ErrOut, "  %s\n", n)
	}
}
