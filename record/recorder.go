package record

import (
	"errors"
	"io"
	"os"
	"sync"
	"time"
)

// Format is the "format" of a recording's header line.
const Format = "ckpt/recording@1"

// DefaultBuffer is how many bytes a recorder holds before it writes them.
const DefaultBuffer = 64 << 10

// Options configure a recorder.
type Options struct {
	// Processes lists every process of the system, in order (the ring
	// order PK uses). A recording of protocol actions needs it: its
	// piggybacks and control bodies name processes by index, as the
	// trace package's types do. Leave it nil to record a trace only.
	Processes []string
	// Algorithm names the recovery protocol the process runs ("ms"). A
	// recording that names one merges into a run (ckpt/run@1) as well
	// as a trace; without, into a trace only.
	Algorithm string
	// Buffer bounds the bytes held in memory before they are written;
	// 0 means DefaultBuffer.
	Buffer int
	// Now reads the clock; nil means time.Now. Tests set it.
	Now func() time.Time
}

// Recorder records one process. Its methods are safe for concurrent use.
type Recorder struct {
	mu   sync.Mutex
	name string
	opt  Options
	w    io.Writer
	file *os.File // set by Open: Sync and Close act on it
	buf  []byte
	size int64 // bytes written to w
	n    int64 // number of the last event written or buffered
	last int64 // time of the last event, Unix ns (kept non-decreasing)
	op   int32 // live ops so far: the next op's "op"
	err  error // first write error; every later call returns it
}

// New returns a recorder for process name writing a new recording to
// w; it writes the header line first (buffered).
func New(name string, w io.Writer, opt Options) *Recorder {
	if opt.Buffer <= 0 {
		opt.Buffer = DefaultBuffer
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	r := &Recorder{name: name, opt: opt, w: w, buf: make([]byte, 0, opt.Buffer+512)}
	r.buf = append(r.buf, r.headLine()...)
	return r
}

// Open returns a recorder for process name appending to the recording
// at path, which it creates if need be. An existing recording is a
// restarted process's: Open checks that it is name's, drops a torn last
// line (what a crash cut short) and carries on its event numbers and
// time, reading only the recording's first line and its end. Its op
// count starts at 0 again: a restarted program runs again from its start
// (merging reads the ops after a fail so), and a protocol's Restart sets
// the count to its pos.
func Open(name, path string, opt Options) (*Recorder, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	r := New(name, f, opt)
	r.file = f
	if err := r.resume(path, f); err != nil {
		f.Close()
		return nil, err
	}
	if r.size > 0 {
		r.buf = r.buf[:0] // the recording resumed has its header
	}
	return r, nil
}

// Flush writes every buffered event to the writer (the operating system,
// for a file). A process killed after Flush returns loses none of them.
func (r *Recorder) Flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.flush()
}

// Size returns the length of the recording written so far, in bytes
// (buffered events not counted). A process can keep it with its own
// stable state as a commit point: after a crash, truncating the
// recording to it (os.Truncate) before Open erases the events of a step
// its stable state says never happened (examples/bank does).
func (r *Recorder) Size() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.size
}

// Sync flushes, then commits the file to stable storage (fsync), so that
// a machine crash loses none of the events either. For a recorder made
// by New it is Flush.
func (r *Recorder) Sync() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.flush(); err != nil || r.file == nil {
		return err
	}
	return r.fail(r.file.Sync())
}

// Close flushes and, for a recorder made by Open, closes the file.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	err := r.flush()
	if r.file != nil {
		err = errors.Join(err, r.file.Close())
		r.file = nil
	}
	if r.err == nil {
		r.err = errors.New("record: recorder closed")
	}
	return err
}

// flush writes the buffer; the caller holds mu.
func (r *Recorder) flush() error {
	if r.err != nil || len(r.buf) == 0 {
		return r.err
	}
	n, err := r.w.Write(r.buf)
	r.size += int64(n)
	r.buf = r.buf[:0]
	return r.fail(err)
}

func (r *Recorder) fail(err error) error {
	if err != nil && r.err == nil {
		r.err = err
	}
	return err
}
