package cmd

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ckpt-dev/ckpt/trace"
)

// Every command reads its traces and runs through this file, so that
// they all treat input alike:
//
//   - "-" is stdin; on a terminal a hint says that ckpt is waiting for it
//     (a user who typed `ckpt verify -` would otherwise see nothing);
//   - a UTF-8 byte order mark before the JSON is skipped (RFC 8259 §8.1
//     lets a parser ignore it; Windows editors write it), also inside
//     gzip, before the decoder sees the input;
//   - an InputError learns which numbering its event index is in, so that
//     it prints "trace event N" or "run event N" (a run's event N is the
//     event with seq N), never a bare "event N" that a reader could take
//     for a seq of another file.

// utf8BOM is the UTF-8 encoding of U+FEFF.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Document kinds, as InputError.Doc names them.
const (
	traceDoc = "trace"
	runDoc   = "run"
)

// stdinHint is printed on stderr when a command reads a terminal.
const stdinHint = "ckpt: reading from standard input (the terminal); paste the JSON and end with Ctrl-D, or give a FILE"

// openStdin returns ios.In past a BOM (inside gzip too), after the
// terminal hint.
func openStdin(ios *IO) io.Reader {
	if f, ok := ios.In.(*os.File); ok && isTerminal(f) {
		fmt.Fprintln(ios.ErrOut, stdinHint)
	}
	br := bufio.NewReaderSize(ios.In, 1<<16)
	head, _ := br.Peek(len(utf8BOM))
	switch {
	case bytes.Equal(head, utf8BOM):
		_, _ = br.Discard(len(utf8BOM))
	case len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b:
		// Decompress here to look inside; the decoder then reads plain
		// JSON. A bad gzip header is reported as the decoder would.
		zr, err := gzip.NewReader(br)
		if err != nil {
			return &errReader{err}
		}
		zbr := bufio.NewReaderSize(zr, 1<<16)
		if b, _ := zbr.Peek(len(utf8BOM)); bytes.Equal(b, utf8BOM) {
			_, _ = zbr.Discard(len(utf8BOM))
		}
		return zbr
	}
	return br
}

// errReader fails every read with err.
type errReader struct{ err error }

func (r *errReader) Read([]byte) (int, error) { return 0, r.err }

// openBOM returns a reader of the file at path past its byte order mark,
// or nil (and no error) when the file has none: the caller then reads
// the file by name, as usual. The returned closer closes the file.
func openBOM(path string) (io.Reader, io.Closer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	head := make([]byte, 3)
	n, _ := io.ReadFull(f, head)
	switch {
	case n == 3 && bytes.Equal(head, utf8BOM):
		return f, f, nil // positioned after the mark
	case n >= 2 && head[0] == 0x1f && head[1] == 0x8b:
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			break
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			break // the decoder reports the bad gzip
		}
		br := bufio.NewReaderSize(zr, 1<<16)
		if b, _ := br.Peek(3); bytes.Equal(b, utf8BOM) {
			_, _ = br.Discard(3)
			return br, f, nil
		}
	}
	f.Close()
	return nil, nil, nil
}

// readTrace reads the trace at path ("-": stdin).
func readTrace(ios *IO, path string) (*trace.Trace, error) {
	return readDoc(ios, path, traceDoc, trace.ReadTrace, trace.ReadTraceFile)
}

// readRun reads the run at path ("-": stdin).
func readRun(ios *IO, path string) (*trace.Run, error) {
	return readDoc(ios, path, runDoc, trace.ReadRun, trace.ReadRunFile)
}

// readDoc reads the document at path ("-": stdin) with read, or by name
// with readFile when the file has no byte order mark, and labels its
// errors as doc's.
func readDoc[T any](ios *IO, path, doc string, read func(string, io.Reader) (T, error), readFile func(string) (T, error)) (T, error) {
	if path == "-" {
		v, err := read("-", openStdin(ios))
		return v, labelled(err, doc)
	}
	readingInput(path)
	if err := ios.checkDecode(path); err != nil {
		var zero T
		return zero, err
	}
	r, c, err := openBOM(path)
	if err != nil {
		var zero T
		return zero, err
	}
	if r == nil {
		v, err := readFile(path)
		return v, labelled(err, doc)
	}
	defer c.Close()
	v, err := read(path, r)
	return v, labelled(err, doc)
}

// readAny reads a trace or a run, whichever path holds ("-": stdin).
func readAny(ios *IO, path string) (*trace.Trace, *trace.Run, error) {
	var r io.Reader
	if path == "-" {
		r = openStdin(ios)
	} else {
		readingInput(path)
		if err := ios.checkDecode(path); err != nil {
			return nil, nil, err
		}
		br, c, err := openBOM(path)
		if err != nil {
			return nil, nil, err
		}
		if br == nil {
			tr, run, err := trace.ReadAnyFile(path)
			return tr, run, labelled(err, docOfFile(path))
		}
		defer c.Close()
		r = br
	}
	format, rest, err := trace.Detect(r)
	if err != nil {
		return nil, nil, &trace.InputError{File: path, Event: -1, Msg: err.Error()}
	}
	if format == trace.RunFormat {
		run, err := trace.ReadRun(path, rest)
		return nil, run, labelled(err, runDoc)
	}
	tr, err := trace.ReadTrace(path, rest)
	return tr, nil, labelled(err, traceDoc)
}

// docOfFile tells, for an error message, whether the file at path is a
// run (by the "format" its header starts with) or else a trace.
func docOfFile(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return traceDoc
	}
	defer f.Close()
	if format, _, err := trace.Detect(f); err == nil && format == trace.RunFormat {
		return runDoc
	}
	return traceDoc
}

// labelled names the document kind of err's InputError, if it has none.
func labelled(err error, doc string) error {
	var ie *trace.InputError
	if errors.As(err, &ie) && ie.Doc == "" {
		ie.Doc = doc
	}
	return err
}

// describe is err as one line for a report entry or stderr, without the
// file name (the caller puts it first): an InputError without its File,
// an OS error without the operation and path it repeats.
func describe(err error) string {
	var ie *trace.InputError
	if errors.As(err, &ie) && error(ie) == err {
		c := *ie
		c.File = ""
		if c.Doc == "" {
			c.Doc = traceDoc
		}
		return oneLine(c.Error())
	}
	var pe *os.PathError
	if errors.As(err, &pe) && error(pe) == err {
		return oneLine(osErrorText(pe.Err))
	}
	var tb *tooBig
	if errors.As(err, &tb) {
		return oneLine(tb.msg)
	}
	return oneLine(err.Error())
}

// osErrorText is an OS error in words a user acts on.
func osErrorText(err error) string {
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "no such file or directory"
	case errors.Is(err, os.ErrPermission):
		return "permission denied"
	}
	if err.Error() == "is a directory" {
		return "is a directory, not a file"
	}
	return err.Error()
}
