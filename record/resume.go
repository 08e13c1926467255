package record

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"

	json "github.com/goccy/go-json"
)

// resume takes up the recording at path, open in f, for Open, reading
// only its first line and its end: it checks that the header is the
// process's, drops a torn last line (a crash cut its write short; what
// comes before it is whole) and takes up the last event's number and
// time. An empty file, or a header cut short, starts afresh; a file
// of other text without a newline is refused, not truncated.
func (r *Recorder) resume(path string, f *os.File) error {
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return err
	}
	start, lineEnd, end, err := lastLine(f, size)
	if err != nil {
		return err
	}
	if end == 0 && size > 0 && !r.tornHead(f, size) {
		return fmt.Errorf("%s: not a %s recording of %s", path, Format, r.name)
	}
	if end > 0 {
		var rec recording
		head, err := bufio.NewReader(io.NewSectionReader(f, 0, end)).ReadBytes('\n')
		if err != nil || rec.header(head) != nil || rec.Process != r.name {
			return fmt.Errorf("%s: not a %s recording of %s", path, Format, r.name)
		}
		if start > 0 { // the last whole line is an event's
			var e event
			line := make([]byte, lineEnd-start)
			if _, err := f.ReadAt(line, start); err != nil {
				return err
			}
			if err := json.Unmarshal(line, &e); err != nil {
				return fmt.Errorf("%s: its last event: %w", path, err)
			}
			r.n, r.last = e.N, e.NS
		}
	}
	if err := f.Truncate(end); err != nil {
		return err
	}
	r.size, err = f.Seek(end, io.SeekStart)
	return err
}

// tornHead reports whether f, size bytes without a newline, is the
// start of the header Open writes: a crash cut its write short. Any
// other text is not a recording, and Open must not truncate it.
func (r *Recorder) tornHead(f io.ReaderAt, size int64) bool {
	want := r.headLine()
	if size > int64(len(want)) {
		return false
	}
	got := make([]byte, size)
	_, err := f.ReadAt(got, 0)
	return err == nil && bytes.HasPrefix(want, got)
}

// lastLine finds, reading f backwards from size, where its whole lines
// end (end: after its last newline; 0 when it has none) and where the
// last of them that is not blank starts and ends (blank lines are
// skipped, as reading a recording skips them).
func lastLine(f io.ReaderAt, size int64) (start, lineEnd, end int64, err error) {
	buf := make([]byte, 64<<10)
	blank := true // the line being scanned has shown only white space
	for off := size; off > 0; {
		n := min(off, int64(len(buf)))
		off -= n
		if _, err := f.ReadAt(buf[:n], off); err != nil {
			return 0, 0, 0, err
		}
		for i := n - 1; i >= 0; i-- {
			switch c := buf[i]; {
			case c != '\n':
				blank = blank && (c == ' ' || c == '\t' || c == '\r')
			case end == 0:
				end, lineEnd = off+i+1, off+i+1
			case blank: // a blank line after the last one with text
				lineEnd = off + i + 1
			default:
				return off + i + 1, lineEnd, end, nil
			}
			if buf[i] == '\n' {
				blank = true
			}
		}
	}
	return 0, lineEnd, end, nil
}
