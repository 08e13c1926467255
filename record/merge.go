package record

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/codec"
)

// Input is one process's recording to merge.
type Input struct {
	Name string // the file name, for messages
	R    io.Reader
}

// Merged is what the recordings of one execution merge into.
type Merged struct {
	// Run is the run (ckpt/run@1), when the recordings name the
	// protocol they ran; nil for recordings of a trace only.
	Run *trace.Run
	// Trace is the execution trace (ckpt/trace@1) the run executed
	// (Derive); for recordings of a trace only, every recorded event.
	Trace *trace.Trace
}

// MergeFiles merges the recordings at paths, one per process.
func MergeFiles(paths ...string) (*Merged, error) {
	var in []Input
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r, err := codec.OpenInput(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", p, err)
		}
		in = append(in, Input{Name: p, R: r})
	}
	return Merge(in...)
}

// Recordings reports whether every path is a per-process recording:
// its first line names Format, gzip-compressed or not. Standard input
// ("-") is never one (merging needs every process's file).
func Recordings(paths []string) bool {
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			return false
		}
		head := make([]byte, 64)
		n := 0
		if r, err := codec.OpenInput(f); err == nil {
			n, _ = io.ReadFull(r, head)
		}
		f.Close()
		if !bytes.Contains(head[:n], []byte(`"`+Format+`"`)) {
			return false
		}
	}
	return len(paths) > 0
}

// Merge merges per-process recordings into one run and trace: in an
// order from recorded causality only (merged), with what no single
// process knows filled in — seq, copy numbers, undone counts, failure
// seqs (build).
//
// The run records no params (restart_delay, control_delay,
// default_delay): they are the simulator's, and a running system's
// network and restarts take what they take. Its options.timing says its
// times were recorded, not replayed (docs/record.md); build writes it.
func Merge(in ...Input) (*Merged, error) {
	recs := make([]*recording, 0, len(in))
	for _, i := range in {
		rec, err := read(i.Name, i.R)
		if err != nil {
			return nil, err
		}
		recs = append(recs, rec)
	}
	procs, alg, err := header(recs)
	if err != nil {
		return nil, err
	}
	if err := link(recs); err != nil {
		return nil, err
	}
	order, err := merged(recs, procs)
	if err != nil {
		return nil, err
	}
	files := make([]string, len(procs))
	for _, r := range recs {
		files[r.p] = r.file
	}
	// A trace-only recording's run is only a step to its trace, read by
	// the run decoder, which wants every run to name its algorithm.
	run, err := build(order, procs, files, cmp.Or(alg, "trace-only"))
	if err != nil {
		return nil, err
	}
	tr, err := Derive(run)
	if alg == "" {
		return &Merged{Trace: tr}, err
	}
	return &Merged{Run: run, Trace: tr}, err
}

// header works out the processes, in order, and the algorithm: those
// the recordings name (they must agree), else the recordings' own
// processes in input order.
func header(recs []*recording) ([]string, string, error) {
	if len(recs) == 0 {
		return nil, "", errors.New("record: no recordings to merge")
	}
	procs, alg := recs[0].Processes, recs[0].Algorithm
	if procs == nil {
		for _, r := range recs {
			procs = append(procs, r.Process)
		}
	}
	seen := make([]bool, len(procs))
	for _, r := range recs {
		if !slices.Equal(r.Processes, recs[0].Processes) || r.Algorithm != alg {
			return nil, "", fmt.Errorf("%s and %s: the recordings disagree on the processes or the algorithm", recs[0].file, r.file)
		}
		p := slices.Index(procs, r.Process)
		if p < 0 || seen[p] {
			return nil, "", fmt.Errorf("%s: process %q is unknown or recorded twice", r.file, r.Process)
		}
		seen[p] = true
		r.p = int32(p)
	}
	return procs, alg, nil
}

// link points every event about a copy or a control message at the
// send that transmitted it.
func link(recs []*recording) error {
	sends := map[string][]*event{}
	for _, r := range recs {
		sends[r.Process] = r.events
	}
	for _, r := range recs {
		for _, e := range r.events {
			switch e.kind {
			case trace.Recv, trace.Log, trace.Discard, trace.Unconsumed, trace.ControlRecv:
			default:
				continue
			}
			evs, ok := sends[e.From]
			if !ok {
				return fmt.Errorf("%s: event n=%d: %s of message %q from %s, whose recording is not among the files: import %s's recording with it", r.file, e.N, e.Kind, e.Msg, e.From, e.From)
			}
			var s *event
			if e.Tx >= 1 && e.Tx <= int64(len(evs)) {
				s = evs[e.Tx-1]
			}
			want := trace.Send
			if e.kind == trace.ControlRecv {
				want = trace.ControlSend
			}
			if s == nil || s.kind != want || s.To != r.Process || s.Msg != e.Msg {
				return fmt.Errorf("%s: event n=%d: %s of message %q, which %s's recording never sent to %s (its transmission %d)", r.file, e.N, e.Kind, e.Msg, e.From, r.Process, e.Tx)
			}
			e.from = s
		}
	}
	return nil
}
