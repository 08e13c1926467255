package record

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	json "github.com/goccy/go-json"
)

// resume reads an existing recording at f for Open, line by line: it
// checks the header, drops a torn last line (a crash cut its write
// short; what comes before it is whole) and takes up the last event's
// number, clock and time. It returns where appending starts (0: empty
// file, or a header cut short).
func (r *Recorder) resume(f *os.File) (int64, error) {
	br := bufio.NewReader(f)
	var end int64
	var head, last []byte
	for {
		line, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return 0, err
		}
		if head == nil {
			head = line
		} else {
			last = line
		}
		end += int64(len(line))
	}
	var rec recording
	if head != nil && (rec.header(head) != nil || rec.process != r.name) {
		return 0, fmt.Errorf("not a %s recording of %s", Format, r.name)
	}
	if err := f.Truncate(end); err != nil {
		return 0, err
	}
	if last != nil {
		var e event
		if err := json.Unmarshal(last, &e); err != nil {
			return 0, fmt.Errorf("its last event: %w", err)
		}
		r.n, r.last, r.clock = e.N, e.NS, e.C
	}
	return end, nil
}
