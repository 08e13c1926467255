package codec

import (
	"bufio"
	"bytes"
	"io"

	"github.com/ckpt-dev/ckpt/trace"
)

// rest leaves the stream decoder: it returns the line it is at and the
// input after what it has consumed, of which the tap keeps nothing.
func (f *frame) rest() (line int, r io.Reader) {
	line = f.tap.lineAt(f.dec.InputOffset())
	f.tap.keep, f.tap.win = false, nil
	return line, io.MultiReader(bytes.NewReader(f.dec.UnreadBuffer()), f.tap)
}

// maxLine bounds the lines of a document read whole: PK tokens make
// lines of hundreds of kilobytes, and a longer line is a hostile value
// or a document on one line, which the stream decoder reads without
// holding it twice. (A variable for the tests of that path.)
var maxLine = 8 << 20

// readLine returns the next line, with its newline, valid until the next
// call; io.EOF comes with the last one (maybe empty). long says the line
// outgrew max: text is its start, the rest is still in br.
func (f *frame) readLine(br *bufio.Reader, max int) (text []byte, long bool, err error) {
	b, err := br.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return b, false, err
	}
	f.whole = append(f.whole[:0], b...)
	for err == bufio.ErrBufferFull {
		if len(f.whole) >= max {
			return f.whole, true, nil
		}
		b, err = br.ReadSlice('\n')
		f.whole = append(f.whole, b...)
	}
	return f.whole, false, err
}

func blank(b []byte) bool { return len(skipSpace(b)) == 0 }

// end checks that only white space follows a document.
func (f *frame) end() error {
	line, rest := f.rest()
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
