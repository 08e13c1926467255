package record

import (
	"bufio"
	"fmt"
	"io"
	"os"

	json "github.com/goccy/go-json"
)

// resume takes up the recording at path, open in f, for Open, reading
// only its first line and its end: it checks that the header is the
// process's, drops a torn last line (a crash cut its write short; what
// comes before it is whole) and takes up the last event's number and
// time. An empty file, or a header cut short, starts afresh.
func (r *Recorder) resume(path string, f *os.File) error {
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return err
	}
	start, end, err := lastLine(f, size)
	if err != nil {
		return err
	}
	if end > 0 {
		var rec recording
		head, err := bufio.NewReader(io.NewSectionReader(f, 0, end)).ReadBytes('\n')
		if err != nil || rec.header(head) != nil || rec.process != r.name {
			return fmt.Errorf("%s: not a %s recording of %s", path, Format, r.name)
		}
		if start > 0 { // the last whole line is an event's
			var e event
			line := make([]byte, end-start)
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

// lastLine finds, reading f backwards from size, where its whole lines
// end (after its last newline; 0 when it has none) and where the last of
// them starts.
func lastLine(f io.ReaderAt, size int64) (start, end int64, err error) {
	buf := make([]byte, 64<<10)
	for off := size; off > 0; {
		n := min(off, int64(len(buf)))
		off -= n
		if _, err := f.ReadAt(buf[:n], off); err != nil {
			return 0, 0, err
		}
		for i := n - 1; i >= 0; i-- {
			if buf[i] != '\n' {
				continue
			}
			if end == 0 {
				end = off + i + 1
				continue
			}
			return off + i + 1, end, nil
		}
	}
	return 0, end, nil
}
