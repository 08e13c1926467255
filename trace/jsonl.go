package trace

import (
	"bufio"
	"io"
)

// lines reads the events of JSON Lines, one per line, after the header
// object has been read as the start of a stream. Blank lines are
// skipped. The decoder's buffer holds the text after the header, the
// tap the rest.
func (f *frame) lines() error {
	if !f.c.listed() {
		return f.headerErr(`missing "processes"`)
	}
	f.jsonl = true
	line := f.tap.lineAt(f.dec.InputOffset())
	f.tap.keep, f.tap.win = false, nil
	br := bufio.NewReaderSize(io.MultiReader(f.dec.Buffered(), f.tap), 64<<10)
	for ; ; line++ {
		text, err := f.readLine(br)
		if err != nil && err != io.EOF {
			return &InputError{File: f.name, Event: f.n, Msg: readError(err)}
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

func blank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// readLine returns the next line, with its newline, valid until the next
// call; io.EOF comes with the last one (maybe empty). A line longer than
// the reader's buffer is assembled in f.long.
func (f *frame) readLine(br *bufio.Reader) ([]byte, error) {
	b, err := br.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return b, err
	}
	f.long = append(f.long[:0], b...)
	for err == bufio.ErrBufferFull {
		b, err = br.ReadSlice('\n')
		f.long = append(f.long, b...)
	}
	return f.long, err
}

// end checks that only white space follows a document.
func (f *frame) end() error {
	line := f.tap.lineAt(f.dec.InputOffset())
	f.tap.keep, f.tap.win = false, nil
	rest := io.MultiReader(f.dec.Buffered(), f.tap)
	var buf [4096]byte
	for {
		n, err := rest.Read(buf[:])
		for _, c := range buf[:n] {
			switch c {
			case '\n':
				line++
			case ' ', '\t', '\r':
			default:
				return &InputError{File: f.name, Event: -1, Line: line, Msg: "unexpected data after the JSON document"}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return &InputError{File: f.name, Event: -1, Msg: readError(err)}
		}
	}
}
