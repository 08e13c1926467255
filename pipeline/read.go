package pipeline

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"strings"

	"github.com/ckpt-dev/ckpt/trace/codec"

	"github.com/ckpt-dev/ckpt/trace"
)

// Every trace and run enters through this file, so that all commands
// read alike: "-" is the Pipeline's Stdin; a UTF-8 byte order mark
// before the JSON is skipped (RFC 8259 §8.1 lets a parser ignore it;
// Windows editors write it), also inside gzip; a file whose decoding is
// estimated over the memory cap is refused before it is read; and an
// InputError learns which numbering its event index is in, so that it
// prints "trace event N" or "run event N" (a run's event N is the event
// with seq N), never a bare "event N".

// Document kinds, as trace.InputError.Doc names them.
const (
	TraceDoc = "trace"
	RunDoc   = "run"
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// ReadTrace reads the trace at path ("-": stdin).
func (p *Pipeline) ReadTrace(path string) (*trace.Trace, error) {
	tr, _, err := p.read(path, codec.TraceFormat)
	return tr, err
}

// ReadRun reads the run at path ("-": stdin).
func (p *Pipeline) ReadRun(path string) (*trace.Run, error) {
	_, run, err := p.read(path, codec.RunFormat)
	return run, err
}

// ReadAny reads a trace or a run, whichever path holds ("-": stdin):
// exactly one of the two is non-nil on success.
func (p *Pipeline) ReadAny(path string) (*trace.Trace, *trace.Run, error) {
	return p.read(path, "")
}

// IsRun reports whether the file at path starts as a run, by its
// header's format, without reading its events: such a file can be
// checked in two passes (CheckFile) rather than read whole. A pipe is
// not looked at: it can be read only once.
func (p *Pipeline) IsRun(path string) bool {
	st, err := os.Stat(path)
	return path != "-" && err == nil && st.Mode().IsRegular() && fileFormat(path) == codec.RunFormat
}

// fileFormat is the "format" the header of the file at path names, past
// a byte order mark and inside gzip ("" if it cannot be told).
func fileFormat(path string) string {
	r, c, err := openFile(path)
	if err != nil {
		return ""
	}
	defer c.Close()
	format, _, err := codec.Detect(r)
	if err != nil {
		return ""
	}
	return format
}

// read reads path as want (codec.TraceFormat, codec.RunFormat, or ""
// for either, told by its header).
func (p *Pipeline) read(path, want string) (*trace.Trace, *trace.Run, error) {
	if path != "-" {
		if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() && p.OnRead != nil {
			p.OnRead(path)
		}
		if e, ok := p.decodeEstimate(path); ok {
			if err := p.Mem.check(path, e); err != nil {
				return nil, nil, err
			}
		}
	}
	r, c, err := p.open(path)
	if err != nil {
		return nil, nil, err
	}
	defer c.Close()
	if _, file := r.(*os.File); file && want == "" {
		// By name, the format is found even after the events.
		tr, run, err := codec.ReadAnyFile(path)
		if doc := TraceDoc; err != nil {
			if fileFormat(path) == codec.RunFormat {
				doc = RunDoc
			}
			err = Labelled(err, doc)
		}
		return tr, run, err
	}
	if want == "" {
		format, rest, err := codec.Detect(r)
		if err != nil {
			return nil, nil, &trace.InputError{File: path, Event: -1, Msg: err.Error()}
		}
		want, r = format, rest
	}
	if want == codec.RunFormat {
		run, err := codec.ReadRun(path, r)
		return nil, run, Labelled(err, RunDoc)
	}
	tr, err := codec.ReadTrace(path, r)
	return tr, nil, Labelled(err, TraceDoc)
}

// open returns a reader of path ("-": stdin) past a UTF-8 byte order
// mark, and what closes it. A file without a mark is returned as the
// *os.File itself, whose size tells the decoder what to reserve, and
// which codec.ReadAnyFile may read again by name.
func (p *Pipeline) open(path string) (io.Reader, io.Closer, error) {
	if path == "-" {
		return p.OpenStdin(), io.NopCloser(nil), nil
	}
	return openFile(path)
}

// openFile is open of a file. A file without a mark anywhere is the
// *os.File itself, at its start; one that cannot go back to its start
// (a pipe: `ckpt verify <(zcat t.json.gz)`, /dev/stdin) is read on past
// what skipBOM looked at, as stdin is.
func openFile(path string) (io.Reader, io.Closer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	r, marked := skipBOM(f)
	if marked {
		return r, f, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return r, f, nil
	}
	return f, f, nil
}

// readTraceFile reads the trace in the named file, past a byte order
// mark as every read here: the source trace a run names too.
func readTraceFile(path string) (*trace.Trace, error) {
	r, c, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return codec.ReadTrace(path, r)
}

// OpenStdin returns Stdin past a byte order mark, decompressed if gzip.
func (p *Pipeline) OpenStdin() io.Reader {
	if p.OnRead != nil {
		p.OnRead("-") // stdin redirected from a file is an input
	}
	if p.Stdin == nil {
		return strings.NewReader("")
	}
	r, _ := skipBOM(p.Stdin)
	return r
}

// skipBOM returns r past a byte order mark, looking inside gzip (the
// decoder then reads plain JSON), and whether there was one. A bad gzip
// header is left to the decoder to report.
func skipBOM(r io.Reader) (io.Reader, bool) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, _ := br.Peek(len(utf8BOM))
	switch {
	case bytes.Equal(head, utf8BOM):
		_, _ = br.Discard(len(utf8BOM))
		return br, true
	case len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b:
		zr, err := gzip.NewReader(br)
		if err != nil {
			return br, false
		}
		zbr := bufio.NewReaderSize(zr, 1<<16)
		if b, _ := zbr.Peek(len(utf8BOM)); bytes.Equal(b, utf8BOM) {
			_, _ = zbr.Discard(len(utf8BOM))
			return zbr, true
		}
		return zbr, false
	}
	return br, false
}

// labelled names the document kind of err's InputError, if it has none.
func Labelled(err error, doc string) error {
	var ie *trace.InputError
	if errors.As(err, &ie) && ie.Doc == "" {
		ie.Doc = doc
	}
	return err
}
