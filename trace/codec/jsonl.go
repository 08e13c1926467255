package codec

import (
	"bufio"
	"bytes"
	"io"

	"github.com/ckpt-dev/ckpt/trace"
)

// lines reads the events of JSON Lines, one per line, after the header
// object has been read as the start of a stream. Blank lines are
// skipped. The decoder's buffer holds the text after the header, the
// tap the rest.
func (f *frame) lines() error {
	if !f.c.listed() {
		return f.headerErr(`missing "processes"`)
	}
	f.jsonl, f.lined = true, true
	line := f.tap.lineAt(f.dec.InputOffset())
	f.tap.keep, f.tap.win = false, nil
	br := bufio.NewReaderSize(io.MultiReader(bytes.NewReader(f.dec.UnreadBuffer()), f.tap), 64<<10)
	for ; ; line++ {
		text, long, err := f.readLine(br)
		if long {
			if err := f.longLine(text, br, line); err != nil {
				return err
			}
			f.n++
			continue
		}
		if err != nil && err != io.EOF {
			return &trace.InputError{File: f.name, Event: f.n, Msg: readError(err)}
		}
		if !blank(text) {
			f.text, f.line, f.last = text, line, err == io.EOF
			if err := f.c.event(f); err != nil {
				return err
			}
			f.n++
		}
		if err == io.EOF {
			return nil
		}
	}
}

// maxLine bounds the lines read whole. PK tokens make lines of hundreds
// of kilobytes; a longer line is a hostile value (a string of a
// gigabyte, nesting a million deep), read by a stream decoder instead.
// (A variable for the tests of that path.)
var maxLine = 8 << 20

// readLine returns the next line, with its newline, valid until the next
// call; io.EOF comes with the last one (maybe empty). long says the line
// outgrew maxLine: text is its start, the rest is still in br.
func (f *frame) readLine(br *bufio.Reader) (text []byte, long bool, err error) {
	b, err := br.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return b, false, err
	}
	f.whole = append(f.whole[:0], b...)
	for err == bufio.ErrBufferFull {
		if len(f.whole) >= maxLine {
			return f.whole, true, nil
		}
		b, err = br.ReadSlice('\n')
		f.whole = append(f.whole, b...)
	}
	return f.whole, false, err
}

// longLine reads an event whose line outgrew maxLine with a stream
// decoder over the rest of the line, so that it costs what it would in
// a document instead of being held whole, twice.
func (f *frame) longLine(head []byte, br *bufio.Reader, line int) error {
	lr := &lineReader{head: head, br: br}
	t := newTap(lr)
	t.nl = line - 1
	f.stream(t)
	f.lined, f.line, f.long = false, line, lr
	defer func() { f.lined, f.long = true, nil }()
	f.resumeAt("", true, f.n)
	if err := f.c.event(f); err != nil {
		return err
	}
	t.keep, t.win = false, nil
	rest := io.MultiReader(bytes.NewReader(f.dec.UnreadBuffer()), t)
	var buf [512]byte
	for {
		n, err := rest.Read(buf[:])
		if !blank(buf[:n]) {
			return f.eventErr("malformed JSON: unexpected data after the event (JSON Lines: one event per line)")
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return &trace.InputError{File: f.name, Event: f.n, Msg: readError(err)}
		}
	}
}

// lineReader reads head, then br up to the end of the line.
type lineReader struct {
	head []byte
	br   *bufio.Reader
	// done is set at the end of the line; last if it was the end of the
	// input too.
	done, last bool
}

func (l *lineReader) Read(p []byte) (int, error) {
	if len(l.head) == 0 && !l.done {
		var err error
		l.head, err = l.br.ReadSlice('\n')
		switch {
		case err == nil:
			l.done = true
		case err == io.EOF:
			l.done, l.last = true, true
		case err != bufio.ErrBufferFull:
			return 0, err
		}
	}
	if len(l.head) == 0 {
		return 0, io.EOF
	}
	n := copy(p, l.head)
	l.head = l.head[n:]
	return n, nil
}

func blank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// end checks that only white space follows a document.
func (f *frame) end() error {
	line := f.tap.lineAt(f.dec.InputOffset())
	f.tap.keep, f.tap.win = false, nil
	rest := io.MultiReader(bytes.NewReader(f.dec.UnreadBuffer()), f.tap)
	var buf [4096]byte
	for {
		n, err := rest.Read(buf[:])
		for _, c := range buf[:n] {
			switch c {
			case '\n':
				line++
			case ' ', '\t', '\r':
			default:
				return &trace.InputError{File: f.name, Event: -1, Line: line, Msg: "unexpected data after the JSON document"}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return &trace.InputError{File: f.name, Event: -1, Msg: readError(err)}
		}
	}
}
