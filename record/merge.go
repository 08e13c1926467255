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
	// Notes say what merging dropped: a last line a crash cut short.
	Notes []string
}

// MergeFiles merges the recordings at paths, one per process; "-" is
// stdin.
func MergeFiles(stdin io.Reader, paths ...string) (*Merged, error) {
	var in []Input
	for _, p := range paths {
		f := stdin
		if p != "-" {
			file, err := os.Open(p)
			if err != nil {
				return nil, err
			}
			defer file.Close()
			f = file
		}
		r, err := codec.OpenInput(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", p, err)
		}
		in = append(in, Input{Name: p, R: r})
	}
	return Merge(in...)
}

// Recordings reports whether paths are per-process recordings: each
// one's first line names a recording format (of any version: reading
// says which it takes), gzip-compressed or not. stdin holds the first
// bytes of standard input ("-"), which cannot be read twice.
func Recordings(paths []string, stdin []byte) bool {
	for _, path := range paths {
		head := stdin
		if path != "-" {
			f, err := os.Open(path)
			if err != nil {
				return false
			}
			head = make([]byte, 512)
			n, _ := io.ReadFull(f, head)
			head = head[:n]
			f.Close()
		}
		b, n := make([]byte, 64), 0
		if r, err := codec.OpenInput(bytes.NewReader(head)); err == nil {
			n, _ = io.ReadFull(r, b)
		}
		if !bytes.Contains(b[:n], []byte(`"ckpt/recording@`)) {
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
	// A trace-only recording's run is only a step to its trace, read by
	// the run decoder, which wants every run to name its algorithm.
	run, err := build(order, procs, cmp.Or(alg, "trace-only"))
	if err != nil {
		return nil, err
	}
	tr, err := Derive(run)
	if ie := (*trace.InputError)(nil); errors.As(err, &ie) && ie.Event >= 0 && ie.Event < len(order) {
		return nil, fmt.Errorf("%s: in the trace of first executions, %s", order[ie.Event].where(), ie.Msg)
	} else if err != nil {
		return nil, err
	}
	notes, err := ended(recs, alg)
	if alg == "" {
		run = nil
	}
	return &Merged{Run: run, Trace: tr, Notes: notes}, err
}

// ended refuses a protocol's recording that does not end with its
// process's end: a run records how every process ended (SPEC §3), and a
// process killed for good, or a recording cut, gives none. A recording
// of a program alone has no end: what a process killed recorded is the
// trace it ran, and a last line the kill cut short is dropped, noted.
func ended(recs []*recording, alg string) (notes []string, err error) {
	for _, r := range recs {
		why := fmt.Sprintf("has no end event (line %d is its last)", r.last)
		switch {
		case alg != "" && r.cut > 0 && r.end > 0:
			return nil, fmt.Errorf("%s: line %d, after process %s's end (line %d), is cut short (no newline): its recording was cut, or written to after the end", r.file, r.cut, r.Process, r.end)
		case alg != "" && r.cut > 0:
			why = fmt.Sprintf("ends in line %d cut short (no newline)", r.cut)
			fallthrough
		case alg != "" && r.end == 0:
			return nil, fmt.Errorf("%s: process %s's recording %s: the process was killed or its recording cut; merge a run's recordings once every process has recorded its end", r.file, r.Process, why)
		case r.cut > 0:
			notes = append(notes, fmt.Sprintf("%s: line %d, cut short (no newline), dropped: the process was killed while it wrote it", r.file, r.cut))
		}
	}
	return notes, nil
}

// where names e in messages: its file and line, its process and n.
func (e *event) where() string {
	return fmt.Sprintf("%s: line %d (%s's event n=%d, %s)", e.rec.file, e.ln, e.rec.Process, e.N, e.Kind)
}

// header works out the processes, in order, and the algorithm: those
// the recordings name (they must agree), else the recordings' own
// processes in input order.
func header(recs []*recording) ([]string, string, error) {
	if len(recs) == 0 {
		return nil, "", errors.New("no recordings to merge")
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
	if p := slices.Index(seen, false); p >= 0 {
		return nil, "", fmt.Errorf("%s: its header names process %q, whose recording is not among the files: import %[2]q's recording with them", recs[0].file, procs[p])
	}
	return procs, alg, nil
}

// link points every event about a copy or a control message at the
// send that transmitted it. A program that runs no recovery protocol
// never re-executes, so it receives a copy once.
func link(recs []*recording) error {
	sends, got := map[string][]*event{}, map[*event]*event{}
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
			what := fmt.Sprintf("message %q", e.Msg)
			if e.kind == trace.ControlRecv {
				what = fmt.Sprintf("a %s control message", e.Ctl)
			}
			evs, ok := sends[e.From]
			if !ok {
				return fmt.Errorf("%s: %s of %s from %s, whose recording is not among the files: import %s's recording with it", e.where(), e.Kind, what, e.From, e.From)
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
				return fmt.Errorf("%s: %s of %s, which %s's recording never sent to %s (its transmission %d)", e.where(), e.Kind, what, e.From, r.Process, e.Tx)
			}
			e.from = s
			if r.Algorithm == "" && e.kind == trace.Recv {
				if first := got[s]; first != nil {
					return fmt.Errorf("%s: recv of %s (%s's transmission %d), which line %d received already: a program without a recovery protocol receives a copy once", e.where(), what, e.From, e.Tx, first.ln)
				}
				got[s] = e
			}
		}
	}
	return nil
}
