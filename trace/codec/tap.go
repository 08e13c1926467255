package codec

import (
	"bytes"
	"errors"
	"io"
)

// tap sits between the input and the goccy/go-json Decoder of a JSON
// document. It keeps the text read since the last mark (the start of the
// member or event being read) and counts the lines of what it drops, so
// that the position of a syntax error can be given as a line; and it
// remembers the reader's error, which the decoder passes on without
// saying that it is one of reading rather than of JSON.
type tap struct {
	r io.Reader
	// win is the input from offset winOff to what has been read; nl
	// counts the newlines before winOff.
	win    []byte
	winOff int64
	nl     int
	// mark is the offset of the text a syntax error would be in: win
	// is dropped up to it. keep is false once nothing needs keeping
	// (JSON Lines after the header, which keeps lines of its own).
	mark int64
	keep bool
	rerr error
}

const (
	// maxKeep bounds the window: past it (a hostile value of a gigabyte)
	// only its last tailKeep bytes are kept, so the value costs the
	// decoder's buffer and not a second copy here. The text from the
	// mark is then lost, and the line of a syntax error in it counted
	// from the tail.
	maxKeep = 1 << 20
	// tailKeep covers what the decoder has read but not consumed (it
	// reads 512 bytes at a time), so the line of its position stays known.
	tailKeep = 8 << 10
)

func newTap(r io.Reader) *tap { return &tap{r: r, keep: true} }

func (t *tap) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 && t.keep {
		t.add(p[:n])
	}
	switch {
	case err != nil && err != io.EOF:
		t.rerr = err
	}
	return n, err
}

// add appends b to the window, first dropping what lies before the mark.
func (t *tap) add(b []byte) {
	if t.mark > t.winOff {
		t.drop(int(min(t.mark-t.winOff, int64(len(t.win)))))
	}
	t.win = append(t.win, b...)
	if len(t.win) > maxKeep {
		t.drop(len(t.win) - tailKeep)
	}
}

// drop forgets the first n bytes of the window, counting their lines.
func (t *tap) drop(n int) {
	t.nl += bytes.Count(t.win[:n], newline)
	m := copy(t.win, t.win[n:])
	t.win = t.win[:m]
	t.winOff += int64(n)
}

var newline = []byte{'\n'}

// lineAt returns the line (from 1) of the byte at offset off; an offset
// before the window counts as its start.
func (t *tap) lineAt(off int64) int {
	i := min(max(int(off-t.winOff), 0), len(t.win))
	return 1 + t.nl + bytes.Count(t.win[:i], newline)
}

// readError words a failure of the reader (I/O, corrupt or cut gzip), or
// returns "" for none.
func readError(err error) string {
	if err == nil || err == io.EOF {
		return ""
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "truncated input (unexpected end of compressed data)"
	}
	return "reading: " + err.Error()
}
