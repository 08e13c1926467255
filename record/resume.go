package record

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"

	json "github.com/goccy/go-json"
)

// resume reads an existing recording at f for Open: it checks the
// header, drops a torn last line and takes up the last event's number,
// clock and time. It returns where appending starts (0: empty file).
func (r *Recorder) resume(f *os.File) (int64, error) {
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return 0, err
	}
	size := st.Size()
	head, err := firstLine(f, size)
	if err != nil {
		return 0, err
	}
	if head[len(head)-1] != '\n' {
		return 0, f.Truncate(0) // a crash cut the header short
	}
	var rec recording
	if rec.header(head) != nil || rec.process != r.name {
		return 0, fmt.Errorf("not a %s recording of %s", Format, r.name)
	}
	end := size
	last, err := lastLine(f, end)
	if err != nil {
		return 0, err
	}
	if last[len(last)-1] != '\n' {
		// A torn line: a crash cut its write short. It is the unflushed
		// tail; what comes before it is whole.
		end -= int64(len(last))
		if last, err = lastLine(f, end); err != nil {
			return 0, err
		}
	}
	if end < size {
		if err := f.Truncate(end); err != nil {
			return 0, err
		}
	}
	if int64(len(last)) == end {
		return end, nil // the header alone
	}
	var e event
	if err := json.Unmarshal(last, &e); err != nil {
		return 0, fmt.Errorf("its last event: %w", err)
	}
	r.n, r.last, r.clock = e.N, e.NS, e.C
	return end, nil
}

// firstLine returns the first line of f, which holds size bytes, with
// its newline if it has one.
func firstLine(f *os.File, size int64) ([]byte, error) {
	b, err := bufio.NewReader(io.NewSectionReader(f, 0, size)).ReadBytes('\n')
	if err == io.EOF {
		err = nil
	}
	return b, err
}

// lastLine returns the last line of f[:end], with its newline if it has
// one.
func lastLine(f *os.File, end int64) ([]byte, error) {
	for window := int64(4096); ; window *= 2 {
		lo := max(0, end-window)
		b := make([]byte, end-lo)
		if _, err := f.ReadAt(b, lo); err != nil && err != io.EOF {
			return nil, err
		}
		i := bytes.LastIndexByte(b[:max(len(b)-1, 0)], '\n') + 1
		if i > 0 || lo == 0 {
			return b[i:], nil
		}
	}
}
