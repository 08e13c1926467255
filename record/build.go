package record

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"

	json "github.com/goccy/go-json"
	"github.com/goccy/go-json/jsontext"

	"github.com/ckpt-dev/ckpt/trace"
	"github.com/ckpt-dev/ckpt/trace/codec"
)

// builder turns merged events into a run.
type builder struct {
	procs  []string
	fails  [][]int32 // fails[p]: seqs of p's fail events, in order
	live   []int32   // live ops per process
	copies map[string]int32
	last   trace.Time
	doc    []byte
	// line and dec read each recorded line, reused from line to line.
	line bytes.Reader
	dec  jsontext.Decoder
}

// build makes the run of the merged events: each recorded line, a run
// event's keys already, with what merging knows put in — seq, times as
// merged (never decreasing), p, copy numbers, undone counts and failure
// seqs — read by the run decoder, which checks it as it checks any run.
func build(order []*event, procs []string, alg string) (*trace.Run, error) {
	b := &builder{procs: procs, fails: make([][]int32, len(procs)), live: make([]int32, len(procs)), copies: map[string]int32{}}
	type options struct {
		Timing string `json:"timing"`
	}
	head, _ := json.MarshalWithOption(struct {
		Format    string   `json:"format"`
		Algorithm string   `json:"algorithm"`
		Processes []string `json:"processes"`
		Options   options  `json:"options"`
	}{codec.RunFormat, alg, procs, options{trace.TimingRecorded}}, json.DisableHTMLEscape())
	b.doc = append(append(head[:len(head)-1], `,"events":[`...), '\n')
	for i, e := range order {
		if i > 0 {
			b.doc = append(b.doc, ",\n"...)
		}
		if err := b.event(e); err != nil {
			return nil, fmt.Errorf("%s: %w", e.where(), err)
		}
	}
	run, err := codec.ReadRun("", bytes.NewReader(append(b.doc, "]}\n"...)))
	if ie := (*trace.InputError)(nil); errors.As(err, &ie) && ie.Event >= 0 && ie.Event < len(order) {
		return nil, fmt.Errorf("%s: %s", order[ie.Event].where(), ie.Msg)
	}
	return run, err
}

// event appends e's run event to the document.
func (b *builder) event(e *event) error {
	t := max(e.t, b.last) // an end or unconsumed copy, placed last
	b.last = t
	failure, err := b.failure(e.Fail)
	if err != nil {
		return err
	}
	var copyN int32
	if e.from != nil {
		copyN = e.from.copy
	}
	undone := int32(trace.None)
	switch e.kind {
	case trace.Send:
		b.copies[e.Msg]++
		e.copy, copyN = b.copies[e.Msg], b.copies[e.Msg]
	case trace.Fail:
		b.fails[e.p] = append(b.fails[e.p], e.seq)
	case trace.Restart, trace.Rollback:
		undone = max(b.live[e.p]-e.Pos, 0)
		b.live[e.p] = e.Pos
	}
	if e.kind.IsOp() && e.Op >= 0 {
		b.live[e.p] = e.Op + 1
	}
	d := strconv.AppendInt(append(b.doc, `{"seq":`...), int64(e.seq), 10)
	d = str(t.AppendJSON(append(d, `,"t":`...)), "p", b.procs[e.p])
	for _, f := range []struct {
		key string
		v   int32
	}{{"copy", copyN}, {"undone", undone}, {"failure", failure}} {
		if f.v > 0 || f.v == 0 && f.key != "copy" {
			d = num(d, f.key, int64(f.v))
		}
	}
	b.doc, err = b.recorded(d, e.line)
	return err
}

// recorded appends the keys of a recorded line that a run event has,
// leaving out those merging replaces or the run does not have.
func (b *builder) recorded(d, line []byte) ([]byte, error) {
	b.line.Reset(line)
	dec := &b.dec
	dec.Reset(&b.line)
	if _, err := dec.ReadToken(); err != nil {
		return d, syntax(err)
	}
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return d, syntax(err)
		}
		key := tok.String() // the next read voids tok
		v, err := dec.ReadValue()
		if err != nil {
			return d, syntax(err)
		}
		switch key {
		case "seq", "t", "p", "copy", "undone", "failure", "n", "ns", "tx":
		default:
			d, _ = jsontext.AppendQuote(append(d, ','), key)
			d = append(append(d, ':'), v...)
		}
	}
	return append(d, '}'), nil
}

// failure resolves a failure's name to the seq of its fail event, which
// causality has placed before any event that answers it.
func (b *builder) failure(f *Failure) (int32, error) {
	if f == nil {
		return trace.None, nil
	}
	p := slices.Index(b.procs, f.P)
	if p < 0 {
		return trace.None, fmt.Errorf("unknown process %q", f.P)
	}
	if f.N < 1 || int(f.N) > len(b.fails[p]) {
		return trace.None, fmt.Errorf("it answers %s's failure %d, which is not recorded before it", f.P, f.N)
	}
	return b.fails[p][f.N-1], nil
}
