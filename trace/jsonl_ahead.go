package trace

import (
	"bufio"
	"io"
)

// Reading JSON Lines ahead. A trace's events are read in two stages: the
// parse (read the line, split the JSON into fields, read the numbers and
// unescape the names) needs nothing of the events before, and the
// assembler's add (intern names and message ids, validate against what
// came before) needs them all. parseAhead runs the first on a goroutine of
// its own, a batch of lines ahead of the assembler, so that a trace of
// 10^7 events decodes on two cores (docs/performance.md). Everything the
// reader reports is what lines reports, at the same event and line: the
// parse's errors come in order after the events before them, and a line
// too long for a batch is read by the assembler's goroutine the way lines
// reads it while the parse waits.

// aheadBatch is the unit of work handed between the stages: parsed
// events whose names point into names, then at most one of an error, a
// long line or the end.
type aheadBatch struct {
	names []byte
	evs   []rawEvent
	// err is the error at the event after evs: the parse's, or the
	// reading's.
	err error
	// long is the start of a line that outgrew maxLine, at line longAt;
	// the rest is still in the reader. The parse waits for resume.
	long   []byte
	longAt int
	// eof says the input ends after evs.
	eof bool
}

// Batch limits: a batch is handed over when it holds aheadEvents events
// or aheadNames bytes of names, so that the assembler starts early and
// the batches in flight (aheadBatches) hold a few megabytes at most.
const (
	aheadEvents  = 1024
	aheadNames   = 256 << 10
	aheadBatches = 4
)

// lineParser is a container whose JSON Lines events can be parsed apart
// from being kept: the trace decoder.
type lineParser interface {
	container
	keep(jsonl bool, r *rawEvent) error
}

// linesAhead is lines for a lineParser: the parse runs on a goroutine of
// its own (parseAhead), the assembler on this one.
func (f *frame) linesAhead(c lineParser, br *bufio.Reader, line int) error {
	full := make(chan *aheadBatch, aheadBatches)
	free := make(chan *aheadBatch, aheadBatches+1)
	for i := 0; i < aheadBatches+1; i++ {
		free <- &aheadBatch{evs: make([]rawEvent, 0, aheadEvents)}
	}
	quit, resume := make(chan struct{}), make(chan struct{})
	// On an error the parse is told to stop and not waited for: it may be
	// blocked reading a pipe, which lines would never have read again.
	defer close(quit)
	go parseAhead(&frame{name: f.name, jsonl: true, lined: true, n: f.n}, br, line, full, free, quit, resume)
	for b := range full {
		for i := range b.evs {
			if err := c.keep(true, &b.evs[i]); err != nil {
				return err
			}
			f.n++
		}
		switch {
		case b.err != nil:
			return b.err
		case b.long != nil:
			if err := f.longLine(b.long, br, b.longAt); err != nil {
				return err
			}
			f.n++
			resume <- struct{}{}
		case b.eof:
			return nil
		}
		free <- b
	}
	// parseAhead ends every input with an error, an end or quit.
	return &InputError{File: f.name, Event: f.n, Msg: "reading ahead stopped before the end of the input"}
}

// parseAhead reads and parses the lines of br into batches sent on full,
// taking empty ones from free, until the input ends, a line is wrong or
// quit is closed. sf is the parse's own frame (its name, its count of
// events); line numbers the next line.
func parseAhead(sf *frame, br *bufio.Reader, line int, full, free chan *aheadBatch, quit, resume chan struct{}) {
	defer close(full)
	var w traceWire
	var buf [5][]byte
	for {
		var b *aheadBatch
		select {
		case b = <-free:
		case <-quit:
			return
		}
		line = sf.fill(b, br, line, &w, &buf)
		select {
		case full <- b:
		case <-quit:
			return
		}
		if b.long != nil {
			select {
			case <-resume:
				sf.n++
			case <-quit:
				return
			}
			continue
		}
		if b.err != nil || b.eof {
			return
		}
	}
}

// fill reads lines into b until it is full or something other than an
// event comes (see aheadBatch), and returns the number of the next line.
func (sf *frame) fill(b *aheadBatch, br *bufio.Reader, line int, w *traceWire, buf *[5][]byte) int {
	b.names, b.evs, b.err, b.long, b.eof = b.names[:0], b.evs[:0], nil, nil, false
	for len(b.evs) < aheadEvents && len(b.names) < aheadNames {
		text, long, err := sf.readLine(br)
		if long {
			b.long, b.longAt = text, line
			return line + 1
		}
		if err != nil && err != io.EOF {
			b.err = &InputError{File: sf.name, Event: sf.n, Msg: readError(err)}
			return line
		}
		if !blank(text) {
			if b.err = sf.parseLine(b, text, line, err == io.EOF, w, buf); b.err != nil {
				return line
			}
		}
		line++
		if err == io.EOF {
			b.eof = true
			return line
		}
	}
	return line
}

// parseLine parses the event on text, line number line, into the next of
// b.evs, its names copied into b.names.
func (sf *frame) parseLine(b *aheadBatch, text []byte, line int, last bool, w *traceWire, buf *[5][]byte) error {
	sf.text, sf.line, sf.last = text, line, last
	b.evs = b.evs[:len(b.evs)+1]
	r := &b.evs[len(b.evs)-1]
	if err := parseEvent(sf, w, r, buf); err != nil {
		b.evs = b.evs[:len(b.evs)-1]
		return err
	}
	// The names point into w or buf, which the next line overwrites.
	// When b.names outgrows its array, the names copied so far keep
	// pointing into the old one, which stays as it was.
	for _, name := range [...]*[]byte{&r.kind, &r.p, &r.to, &r.msg, &r.label} {
		start := len(b.names)
		b.names = append(b.names, *name...)
		*name = b.names[start:len(b.names):len(b.names)]
	}
	sf.n++
	return nil
}
